package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;

/**
 * The scenario's declared schema, checked before anything is read: every key and the kind of its value come from the
 * defaults in {@code reference.conf} (a key that is not there is unknown; a value must have the kind of its
 * default), a policy block's keys from its policy's declared parameters; the expect, explore, workloads and faults
 * blocks go to their own readers. Every problem is recorded with its full key path.
 */
public final class ScenarioSchema {
  private static final Pattern DURATION = Pattern.compile("^\\d+(\\.\\d+)?\\s*(ns|us|ms|s|m|h|d)$");
  private static final Pattern SIZE = Pattern.compile("^\\d+\\s*(B|KiB|MiB|GiB|TiB|kB|MB|GB)$");
  private static final String ROOT = ScenarioLoader.ROOT;
  /** The policy kinds each policy block may name. */
  private static final Set<PolicyKind<?>> GPU_KINDS = Set.of(PolicyKind.GPU, PolicyKind.SPACE);

  private enum Kind { INT, REAL, DURATION, BYTES, TEXT, BOOL, INT_LIST, OBJECT }

  private final Config reference;
  private final PolicyCatalog policies;
  private final Problems problems;

  ScenarioSchema(Config reference, PolicyCatalog policies, Problems problems) {
    this.reference = reference;
    this.policies = policies;
    this.problems = problems;
  }

  /** Checks the scenario's keys and the kinds of their values against the schema. */
  void checkStructure(Config scenario) {
    Config defaults = reference.getConfig("scenario-defaults");
    for (Map.Entry<String, ConfigValue> e : scenario.root().entrySet()) {
      String key = e.getKey();
      String path = ROOT + "." + ConfigUtil.joinPath(key);
      switch (key) {
        case "vms" -> checkVms(e.getValue(), path);
        case "workloads" -> { } // keys per workload kind: ScenarioWorkloads, once the GPU's SMs are known
        case "expect" -> ExpectBlock.check(e.getValue(), path, reference.getConfig(KeyLists.SECTION + ".expect-row"),
            policies, problems::report);
        case "explore" -> ExploreBlock.check(e.getValue(), path, problems::report);
        case "scheduler" -> checkScheduler(e.getValue(), path);
        case "memory" -> checkPolicyBlock(e.getValue(), path, Set.of(PolicyKind.MEMORY));
        case "placement" -> checkPolicyBlock(e.getValue(), path, Set.of(PolicyKind.PLACEMENT));
        case "hosts" -> checkHosts(e.getValue(), path);
        case "vm-defaults" -> problems.report(path, "unknown key; set VMs under scenario.vms.<name>");
        case "host-defaults" -> problems.report(path, "unknown key; set hosts under scenario.hosts.<name>");
        case "faults" -> { } // each fault's keys and values: ScenarioFaults, once the VMs are known
        default -> {
          if (!defaults.root().containsKey(key)) {
            problems.report(path, "unknown key; expected one of " + keysWithVms(defaults.root()));
          } else {
            checkAgainst(e.getValue(), defaults.root().get(key), path);
          }
        }
      }
    }
  }

  private void checkVms(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.report(path, "expected an object keyed by VM name, e.g. vms { vm1 { workload = dirt3 } }");
      return;
    }
    ConfigObject vms = (ConfigObject) value;
    if (vms.isEmpty()) problems.report(path, "expected at least one VM");
    ConfigObject template = reference.getObject("scenario-defaults.vm-defaults");
    for (Map.Entry<String, ConfigValue> vm : vms.entrySet()) {
      String vmPath = path + "." + ConfigUtil.joinPath(vm.getKey());
      if (vm.getValue().valueType() != ConfigValueType.OBJECT) {
        problems.report(vmPath, "expected an object with the VM's settings (workload, weight, vcpus, ...)");
        continue;
      }
      checkAgainst(vm.getValue(), template, vmPath);
    }
  }

  private void checkHosts(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.report(path, "expected an object keyed by host name, e.g. hosts { a { cores = 8, gpus = 2 } }");
      return;
    }
    ConfigObject template = reference.getObject("scenario-defaults.host-defaults");
    ConfigObject gpuTemplate = reference.getObject("scenario-defaults.gpu");
    for (Map.Entry<String, ConfigValue> host : ((ConfigObject) value).entrySet()) {
      String hostPath = path + "." + ConfigUtil.joinPath(host.getKey());
      if (!host.getKey().matches("[A-Za-z0-9][A-Za-z0-9_-]*")) {
        problems.report(hostPath, "a host name is letters, digits, '-' and '_', starting with a letter or digit");
      }
      if (host.getValue().valueType() != ConfigValueType.OBJECT) {
        problems.report(hostPath, "expected an object with the host's settings (cores, gpus, gpu)");
        continue;
      }
      for (Map.Entry<String, ConfigValue> e : ((ConfigObject) host.getValue()).entrySet()) {
        String sub = hostPath + "." + ConfigUtil.joinPath(e.getKey());
        if (e.getKey().equals("gpu")) {
          checkAgainst(e.getValue(), gpuTemplate, sub);
        } else if (!template.containsKey(e.getKey())) {
          problems.report(sub, "unknown key; expected one of " + keysOf(template));
        } else {
          checkAgainst(e.getValue(), template.get(e.getKey()), sub);
        }
      }
    }
  }

  private void checkScheduler(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.report(path, "expected an object with 'gpu' and 'cpu'");
      return;
    }
    for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
      String sub = path + "." + ConfigUtil.joinPath(e.getKey());
      switch (e.getKey()) {
        case "gpu" -> checkPolicyBlock(e.getValue(), sub, GPU_KINDS);
        case "cpu" -> checkPolicyBlock(e.getValue(), sub, Set.of(PolicyKind.CPU));
        default -> problems.report(sub, "unknown key; expected one of [cpu, gpu]");
      }
    }
  }

  /** A block with {@code policy = name} and that policy's parameters beside it. */
  private void checkPolicyBlock(ConfigValue value, String path, Set<PolicyKind<?>> kinds) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.report(path, "expected an object with 'policy' and its parameters");
      return;
    }
    ConfigObject block = (ConfigObject) value;
    PolicySpec<?> policy = policyNamed(block, path, kinds);
    if (policy == null) return;
    Map<String, Param> params = new LinkedHashMap<>();
    for (Param p : policy.params()) params.put(p.name(), p);
    for (Map.Entry<String, ConfigValue> e : block.entrySet()) {
      if (e.getKey().equals("policy")) continue;
      String sub = path + "." + ConfigUtil.joinPath(e.getKey());
      Param param = params.get(e.getKey());
      if (param == null) {
        problems.report(sub, "not a parameter of policy '" + policy.name() + "'; its parameters: "
            + (params.isEmpty() ? "none" : params.keySet()));
      } else {
        String expected = checkKind(e.getValue(), kindOf(param.type()));
        if (expected != null) problems.report(sub, "expected " + expected + ", got " + render(e.getValue()));
      }
    }
  }

  private PolicySpec<?> policyNamed(ConfigObject block, String path, Set<PolicyKind<?>> kinds) {
    ConfigValue v = block.get("policy");
    List<String> valid = new ArrayList<>();
    for (PolicyKind<?> k : PolicyKind.ALL) if (kinds.contains(k)) valid.addAll(policies.names(k));
    if (v != null && v.valueType() != ConfigValueType.STRING) {
      problems.report(path + ".policy", "expected a policy name, one of " + valid);
      return null;
    }
    String name = v == null ? reference.getString("scenario-defaults." + path.substring(ROOT.length() + 1) + ".policy")
        : String.valueOf(v.unwrapped());
    Optional<PolicyCatalog.Entry> entry = policies.find(name).filter(e -> kinds.contains(e.spec().kind()));
    if (entry.isEmpty()) {
      problems.report(path + ".policy", "unknown policy '" + name + "'; valid: " + String.join(", ", valid));
      return null;
    }
    return entry.get().spec();
  }

  private static Kind kindOf(Param.Type type) {
    return switch (type) {
      case DURATION -> Kind.DURATION;
      case INTEGER -> Kind.INT;
      case REAL -> Kind.REAL;
      case BYTES -> Kind.BYTES;
      case FLAG -> Kind.BOOL;
      case TEXT -> Kind.TEXT;
    };
  }

  /** Checks a value against its default in reference.conf: an object key by key, else the default's kind. */
  void checkAgainst(ConfigValue value, ConfigValue template, String path) {
    Kind kind = kindOf(template);
    if (kind == Kind.OBJECT) {
      if (value.valueType() != ConfigValueType.OBJECT) {
        problems.report(path, "expected an object with keys " + keysOf((ConfigObject) template));
        return;
      }
      ConfigObject t = (ConfigObject) template;
      for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
        String sub = path + "." + ConfigUtil.joinPath(e.getKey());
        if (!t.containsKey(e.getKey())) {
          problems.report(sub, "unknown key; expected one of " + keysOf(t));
        } else {
          checkAgainst(e.getValue(), t.get(e.getKey()), sub);
        }
      }
      return;
    }
    String expected = checkKind(value, kind);
    if (expected != null) problems.report(path, "expected " + expected + ", got " + render(value));
  }

  /** Null when the value has the kind, else a description of what was expected. */
  private static String checkKind(ConfigValue value, Kind kind) {
    Object raw = value.unwrapped();
    Config probe = ConfigFactory.empty().withValue("v", value);
    switch (kind) {
      case INT:
        return raw instanceof Integer || raw instanceof Long ? null : "an integer";
      case REAL:
        return raw instanceof Number ? null : "a number";
      case BOOL:
        return raw instanceof Boolean ? null : "true or false";
      case TEXT:
        return value.valueType() == ConfigValueType.STRING || raw instanceof Number ? null : "a name (string)";
      case DURATION:
        if (value.valueType() != ConfigValueType.STRING) return "a duration with a unit, e.g. 16ms";
        try {
          probe.getDuration("v");
          return null;
        } catch (ConfigException e) {
          return "a duration with a unit, e.g. 16ms";
        }
      case BYTES:
        try {
          probe.getBytes("v");
          return null;
        } catch (ConfigException e) {
          return "a size, e.g. 512MiB";
        }
      case INT_LIST:
        if (value.valueType() != ConfigValueType.LIST) return "a list of integers, e.g. [0, 1]";
        for (ConfigValue item : (ConfigList) value) {
          Object u = item.unwrapped();
          if (!(u instanceof Integer || u instanceof Long)) return "a list of integers, e.g. [0, 1]";
        }
        return null;
      default:
        return null;
    }
  }

  /**
   * The kind a scenario value must have where reference.conf has {@code template} as the default, as the generated
   * reference names it: integer, real, duration, size, text, flag, list or object.
   */
  public static String kindName(ConfigValue template) {
    return switch (kindOf(template)) {
      case INT -> "integer";
      case REAL -> "real";
      case DURATION -> "duration";
      case BYTES -> "size";
      case TEXT -> "text";
      case BOOL -> "flag";
      case INT_LIST -> "list";
      case OBJECT -> "object";
    };
  }

  private static Kind kindOf(ConfigValue template) {
    Object raw = template.unwrapped();
    return switch (template.valueType()) {
      case OBJECT -> Kind.OBJECT;
      case LIST -> Kind.INT_LIST;
      case BOOLEAN -> Kind.BOOL;
      case NUMBER -> raw instanceof Double || writtenAsReal(template) ? Kind.REAL : Kind.INT;
      case STRING -> {
        String s = raw.toString().trim();
        if (DURATION.matcher(s).matches()) yield Kind.DURATION;
        if (SIZE.matcher(s).matches()) yield Kind.BYTES;
        yield Kind.TEXT;
      }
      default -> Kind.TEXT;
    };
  }

  private static final Map<java.net.URL, List<String>> SOURCES = new java.util.concurrent.ConcurrentHashMap<>();

  /**
   * Typesafe Config stores a whole-number default such as {@code 30.0} as an integer, so the kind of a number is
   * read from how reference.conf writes it: with a decimal point it takes any real number.
   */
  private static boolean writtenAsReal(ConfigValue template) {
    java.net.URL url = template.origin().url();
    int line = template.origin().lineNumber();
    if (url == null || line < 1) return false;
    List<String> lines = SOURCES.computeIfAbsent(url, u -> {
      try (var in = u.openStream()) {
        return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).lines().toList();
      } catch (java.io.IOException e) {
        return List.of();
      }
    });
    if (line > lines.size()) return false;
    String text = lines.get(line - 1).replaceFirst("#.*$", "");
    int eq = text.indexOf('=');
    return eq >= 0 && text.substring(eq + 1).trim().matches("-?\\d*\\.\\d+");
  }

  /** The keys a scenario may set at its top: the defaults' keys, with vms instead of vm-defaults. */
  private static String keysWithVms(ConfigObject defaults) {
    Set<String> keys = new TreeSet<>(defaults.keySet());
    keys.remove("vm-defaults");
    keys.add("vms");
    return keys.toString();
  }

  private static String keysOf(ConfigObject o, String... hidden) {
    Set<String> keys = new TreeSet<>(o.keySet());
    for (String h : hidden) keys.remove(h);
    return keys.toString();
  }

  private static String render(ConfigValue v) {
    return v.render().replace('\n', ' ');
  }
}
