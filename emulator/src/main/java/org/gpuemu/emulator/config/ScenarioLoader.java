package org.gpuemu.emulator.config;

import org.gpuemu.emulator.clock.Causality;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.gpuemu.emulator.config.Settings.PolicyChoice;
import org.gpuemu.emulator.config.Settings.SyncWait;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.fairgv.GuestWaitRule;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.placement.PlacementDecision;
import org.gpuemu.policies.placement.PlacementPlan;
import org.gpuemu.policies.placement.PlacementPolicy;
import org.gpuemu.policies.placement.VmRequest;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.StepLoop;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * Reads a scenario file into {@link Settings.Scenario}. Structure is checked against the defaults in
 * {@code reference.conf} (a key that is not there is unknown; a value must have the kind of its default), then
 * semantics (ranges, names, pinning); every problem is collected with its full key path and reported at once.
 */
public final class ScenarioLoader {
  private static final Pattern DURATION = Pattern.compile("^\\d+(\\.\\d+)?\\s*(ns|us|ms|s|m|h|d)$");
  private static final Pattern SIZE = Pattern.compile("^\\d+\\s*(B|KiB|MiB|GiB|TiB|kB|MB|GB)$");
  private static final String ROOT = "scenario";
  /** The policy kinds each policy block may name. */
  private static final Set<PolicyKind<?>> GPU_KINDS = Set.of(PolicyKind.GPU, PolicyKind.SPACE);
  /** More vCPUs per VM than any hypervisor offers is a typo, and each would be an actor. */
  static final int MAX_VCPUS = 1024;

  private enum Kind { INT, REAL, DURATION, BYTES, TEXT, BOOL, INT_LIST, OBJECT }

  private final Config reference;
  private final PolicyCatalog policies;
  private final String file;
  private final List<String> problems = new ArrayList<>();
  /** Each VM's vCPUs and the host it is pinned to, by its index in file order (vms, then place). */
  private final Map<Integer, Integer> vcpuCounts = new java.util.HashMap<>();
  private final Map<Integer, Integer> pinnedHost = new java.util.HashMap<>();
  /** The scenario's own workloads (scenario.workloads), consulted before the catalog. */
  private ScenarioWorkloads.Result custom = new ScenarioWorkloads.Result(Map.of(), Set.of());

  private ScenarioLoader(Config reference, PolicyCatalog policies, String file) {
    this.reference = reference.getConfig("gpuemu");
    this.policies = policies;
    this.file = file;
  }

  /** Command-line choices that override the file. Null fields mean 'as the file says'. */
  public record Overrides(Double timeScale, Long durationNanos, Long seed, Map<String, String> sets,
      FaultPlan.Cli faults) {
    public Overrides(Double timeScale, Long durationNanos, Long seed, Map<String, String> sets) {
      this(timeScale, durationNanos, seed, sets, FaultPlan.Cli.NONE);
    }

    public static Overrides none() {
      return new Overrides(null, null, null, Map.of());
    }
  }

  /** Loads and validates a scenario file against the built-in policies (and any on the class path). */
  public static Settings.Scenario load(Path path, Overrides overrides) throws ConfigProblems {
    return load(path, overrides, PolicyCatalog.builtIn());
  }

  /** Loads and validates a scenario file; its policies are looked up in {@code policies} (with plugins). */
  public static Settings.Scenario load(Path path, Overrides overrides, PolicyCatalog policies) throws ConfigProblems {
    return new ScenarioLoader(ConfigFactory.defaultReference(), policies, path.toString()).read(path, overrides);
  }

  private List<String> fileHosts = List.of();
  private List<String> fileVms = List.of();

  private Settings.Scenario read(Path path, Overrides overrides) throws ConfigProblems {
    if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
      throw ConfigProblems.of(file + ": cannot read the scenario file (no such readable file)");
    }
    Config user;
    try {
      user = ConfigFactory.parseFile(path.toFile(),
          ConfigParseOptions.defaults().setSyntax(ConfigSyntax.CONF).setAllowMissing(false));
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": not valid HOCON: " + e.getMessage());
    }
    // before --set: an override moves a key's origin (its line), not the host's or the VM's place in the file
    fileHosts = inFileOrder(user, "hosts");
    fileVms = inFileOrder(user, "vms");
    user = applySets(user, overrides.sets());
    fail();
    try {
      user = user.resolve();
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": cannot resolve a substitution: " + e.getMessage());
    }
    for (String top : user.root().keySet()) {
      if (!top.equals(ROOT)) problems.add(at(top, "unknown top-level key; a scenario's keys live under 'scenario'"));
    }
    if (!user.hasPath(ROOT) || user.getValue(ROOT).valueType() != ConfigValueType.OBJECT) {
      problems.add(at(ROOT, "expected an object holding the scenario (scenario { vms { ... } })"));
      fail();
    }
    int before = problems.size();
    Config scenario = withTrace(user.getConfig(ROOT), path);
    if (problems.size() > before) fail(); // a trace that did not expand: its hosts and VMs are not there to check
    checkStructure(scenario);
    fail();
    Config merged = scenario.withFallback(reference.getConfig("scenario-defaults"));
    Settings.Scenario result = build(merged, scenario, path, overrides);
    fail();
    return result;
  }

  /** The scenario with its trace window's hosts, workloads and VMs ({@link ClusterTraceScenario}), if it has one. */
  private Config withTrace(Config scenario, Path path) {
    if (!scenario.hasPath("trace") || scenario.getValue("trace").valueType() != ConfigValueType.OBJECT) return scenario;
    Config trace = scenario.getConfig("trace").withFallback(reference.getConfig("scenario-defaults.trace"));
    checkAgainst(scenario.getValue("trace"), reference.getValue("scenario-defaults.trace"), ROOT + ".trace");
    if (!problems.isEmpty() || trace.getString("tasks-file").isBlank()) return scenario;
    for (String own : List.of("hosts", "host", "vms")) {
      if (scenario.hasPath(own)) problems.add(at(ROOT + "." + own, "a scenario with a trace gets its hosts and VMs from "
          + "the trace (scenario.trace); remove this key"));
    }
    Config generated = ClusterTraceScenario.expand(trace, path, (key, message) -> problems.add(at(key, message)));
    return generated.withFallback(scenario);
  }

  /** The hosts or VMs ({@code key}) the file itself declares, in the order of their lines. */
  private static List<String> inFileOrder(Config file, String key) {
    String path = ROOT + "." + key;
    if (!file.hasPath(path) || file.getValue(path).valueType() != ConfigValueType.OBJECT) return List.of();
    com.typesafe.config.ConfigObject hosts = file.getObject(path);
    List<String> names = new ArrayList<>(hosts.keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> hosts.get(n).origin().lineNumber())
        .thenComparing(n -> n));
    return names;
  }

  private Config applySets(Config user, Map<String, String> sets) {
    Config result = user;
    for (Map.Entry<String, String> e : sets.entrySet()) {
      String key = e.getKey().startsWith(ROOT + ".") ? e.getKey() : ROOT + "." + e.getKey();
      try {
        Config one = ConfigFactory.parseString(key + " = " + e.getValue());
        result = one.withFallback(result);
      } catch (ConfigException ex) {
        problems.add("--set " + e.getKey() + "=" + e.getValue() + ": cannot parse: " + ex.getMessage());
      }
    }
    return result;
  }

  // ---------------------------------------------------------------- structure

  private void checkStructure(Config scenario) {
    Config defaults = reference.getConfig("scenario-defaults");
    for (Map.Entry<String, ConfigValue> e : scenario.root().entrySet()) {
      String key = e.getKey();
      String path = ROOT + "." + ConfigUtil.joinPath(key);
      switch (key) {
        case "vms" -> checkVms(e.getValue(), path);
        case "workloads" -> { } // keys per workload kind: ScenarioWorkloads, once the GPU's SMs are known
        case "expect" -> Expectations.check(e.getValue(), path, reference.getConfig("expect-row"), policies,
            (where, message) -> problems.add(at(where, message)));
        case "explore" -> ExploreBlock.check(e.getValue(), path, (where, message) -> problems.add(at(where, message)));
        case "scheduler" -> checkScheduler(e.getValue(), path);
        case "memory" -> checkPolicyBlock(e.getValue(), path, Set.of(PolicyKind.MEMORY));
        case "placement" -> checkPolicyBlock(e.getValue(), path, Set.of(PolicyKind.PLACEMENT));
        case "hosts" -> checkHosts(e.getValue(), path);
        case "vm-defaults" -> problems.add(at(path, "unknown key; set VMs under scenario.vms.<name>"));
        case "host-defaults" -> problems.add(at(path, "unknown key; set hosts under scenario.hosts.<name>"));
        case "faults" -> { } // each fault's keys and values: ScenarioFaults, once the VMs are known
        default -> {
          if (!defaults.root().containsKey(key)) {
            problems.add(at(path, "unknown key; expected one of " + keysWithVms(defaults.root())));
          } else {
            checkAgainst(e.getValue(), defaults.root().get(key), path);
          }
        }
      }
    }
  }

  private void checkVms(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.add(at(path, "expected an object keyed by VM name, e.g. vms { vm1 { workload = dirt3 } }"));
      return;
    }
    ConfigObject vms = (ConfigObject) value;
    if (vms.isEmpty()) problems.add(at(path, "expected at least one VM"));
    ConfigObject template = reference.getObject("scenario-defaults.vm-defaults");
    for (Map.Entry<String, ConfigValue> vm : vms.entrySet()) {
      String vmPath = path + "." + ConfigUtil.joinPath(vm.getKey());
      if (vm.getValue().valueType() != ConfigValueType.OBJECT) {
        problems.add(at(vmPath, "expected an object with the VM's settings (workload, weight, vcpus, ...)"));
        continue;
      }
      checkAgainst(vm.getValue(), template, vmPath);
    }
  }

  private void checkHosts(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.add(at(path, "expected an object keyed by host name, e.g. hosts { a { cores = 8, gpus = 2 } }"));
      return;
    }
    ConfigObject template = reference.getObject("scenario-defaults.host-defaults");
    ConfigObject gpuTemplate = reference.getObject("scenario-defaults.gpu");
    for (Map.Entry<String, ConfigValue> host : ((ConfigObject) value).entrySet()) {
      String hostPath = path + "." + ConfigUtil.joinPath(host.getKey());
      if (!host.getKey().matches("[A-Za-z0-9][A-Za-z0-9_-]*")) {
        problems.add(at(hostPath, "a host name is letters, digits, '-' and '_', starting with a letter or digit"));
      }
      if (host.getValue().valueType() != ConfigValueType.OBJECT) {
        problems.add(at(hostPath, "expected an object with the host's settings (cores, gpus, gpu)"));
        continue;
      }
      for (Map.Entry<String, ConfigValue> e : ((ConfigObject) host.getValue()).entrySet()) {
        String sub = hostPath + "." + ConfigUtil.joinPath(e.getKey());
        if (e.getKey().equals("gpu")) {
          checkAgainst(e.getValue(), gpuTemplate, sub);
        } else if (!template.containsKey(e.getKey())) {
          problems.add(at(sub, "unknown key; expected one of " + keysOf(template)));
        } else {
          checkAgainst(e.getValue(), template.get(e.getKey()), sub);
        }
      }
    }
  }

  private void checkScheduler(ConfigValue value, String path) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.add(at(path, "expected an object with 'gpu' and 'cpu'"));
      return;
    }
    for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
      String sub = path + "." + ConfigUtil.joinPath(e.getKey());
      switch (e.getKey()) {
        case "gpu" -> checkPolicyBlock(e.getValue(), sub, GPU_KINDS);
        case "cpu" -> checkPolicyBlock(e.getValue(), sub, Set.of(PolicyKind.CPU));
        default -> problems.add(at(sub, "unknown key; expected one of [cpu, gpu]"));
      }
    }
  }

  /** A block with {@code policy = name} and that policy's parameters beside it. */
  private void checkPolicyBlock(ConfigValue value, String path, Set<PolicyKind<?>> kinds) {
    if (value.valueType() != ConfigValueType.OBJECT) {
      problems.add(at(path, "expected an object with 'policy' and its parameters"));
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
        problems.add(at(sub, "not a parameter of policy '" + policy.name() + "'; its parameters: "
            + (params.isEmpty() ? "none" : params.keySet())));
      } else {
        String expected = checkKind(e.getValue(), kindOf(param.type()));
        if (expected != null) problems.add(at(sub, "expected " + expected + ", got " + render(e.getValue())));
      }
    }
  }

  private PolicySpec<?> policyNamed(ConfigObject block, String path, Set<PolicyKind<?>> kinds) {
    ConfigValue v = block.get("policy");
    List<String> valid = new ArrayList<>();
    for (PolicyKind<?> k : PolicyKind.ALL) if (kinds.contains(k)) valid.addAll(policies.names(k));
    if (v != null && v.valueType() != ConfigValueType.STRING) {
      problems.add(at(path + ".policy", "expected a policy name, one of " + valid));
      return null;
    }
    String name = v == null ? reference.getString("scenario-defaults." + path.substring(ROOT.length() + 1) + ".policy")
        : String.valueOf(v.unwrapped());
    Optional<PolicyCatalog.Entry> entry = policies.find(name).filter(e -> kinds.contains(e.spec().kind()));
    if (entry.isEmpty()) {
      problems.add(at(path + ".policy", "unknown policy '" + name + "'; valid: " + String.join(", ", valid)));
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

  private void checkAgainst(ConfigValue value, ConfigValue template, String path) {
    Kind kind = kindOf(template);
    if (kind == Kind.OBJECT) {
      if (value.valueType() != ConfigValueType.OBJECT) {
        problems.add(at(path, "expected an object with keys " + keysOf((ConfigObject) template)));
        return;
      }
      ConfigObject t = (ConfigObject) template;
      for (Map.Entry<String, ConfigValue> e : ((ConfigObject) value).entrySet()) {
        String sub = path + "." + ConfigUtil.joinPath(e.getKey());
        if (!t.containsKey(e.getKey())) {
          problems.add(at(sub, "unknown key; expected one of " + keysOf(t)));
        } else {
          checkAgainst(e.getValue(), t.get(e.getKey()), sub);
        }
      }
      return;
    }
    String expected = checkKind(value, kind);
    if (expected != null) problems.add(at(path, "expected " + expected + ", got " + render(value)));
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

  // ---------------------------------------------------------------- semantics

  private Settings.Scenario build(Config c, Config user, Path path, Overrides o) {
    String fileName = path.getFileName().toString().replaceFirst("\\.conf$", "");
    String name = c.getString("name").isBlank() ? fileName : c.getString("name");
    double scale = o.timeScale() != null ? o.timeScale() : c.getDouble("time-scale");
    if (!(scale > 0) || Double.isInfinite(scale)) problems.add(at("scenario.time-scale", "expected a number > 0, got " + scale));
    long duration = o.durationNanos() != null ? o.durationNanos() : c.getDuration("duration").toNanos();
    if (duration <= 0) problems.add(at("scenario.duration", "expected a duration > 0, got " + c.getValue("duration").render()));
    long seed = o.seed() != null ? o.seed() : c.getLong("seed");
    Settings.Gpu gpu = gpu(c, "gpu", "scenario.gpu");
    List<Settings.Host> hosts = hosts(c, user, gpu);
    PolicyChoice gpuPolicy = policy(c, "scheduler.gpu");
    PolicyChoice cpuPolicy = policy(c, "scheduler.cpu");
    PolicyChoice memPolicy = policy(c, "memory");
    boolean space = gpuPolicy.spec().kind() == PolicyKind.SPACE;
    double threshold = c.getDouble("fidelity.violation-threshold");
    if (!(threshold > 0)) problems.add(at("scenario.fidelity.violation-threshold", "expected a fraction > 0, got " + threshold));
    double rate = c.getDouble("fidelity.violation-rate");
    if (!(rate >= 0 && rate <= 1)) problems.add(at("scenario.fidelity.violation-rate", "expected a fraction in [0, 1], got " + rate));
    Causality.Order order = Causality.Order.of(c.getString("fidelity.order"));
    if (order == null) {
      problems.add(at("scenario.fidelity.order", "expected conservative or arrival, got "
          + c.getValue("fidelity.order").render()));
      order = Causality.Order.CONSERVATIVE;
    }
    double lagShare = c.getDouble("fidelity.lag-share");
    if (!(lagShare >= 0 && lagShare < 1)) problems.add(at("scenario.fidelity.lag-share", "expected a fraction in [0, 1), got " + lagShare));
    int hostThreads = c.getInt("fidelity.host-threads");
    if (hostThreads < 0 || hostThreads > 256) {
      problems.add(at("scenario.fidelity.host-threads", "expected 0 (one order for the whole run) to 256 threads, got "
          + hostThreads));
    } else if (hostThreads > 0 && order != Causality.Order.CONSERVATIVE) {
      problems.add(at("scenario.fidelity.host-threads", "host threads need order = conservative (the arrival order "
          + "keeps its own two-thread pool), got " + hostThreads));
    }
    Settings.Fidelity fidelity = new Settings.Fidelity(order, positiveNanos(c, "fidelity.horizon"), lagShare,
        threshold, rate, positiveNanos(c, "fidelity.liveness-timeout"), c.getLong("fidelity.order-seed"),
        Math.max(0, Math.min(256, hostThreads)));
    long period = positiveNanos(c, "metrics.period");
    custom = ScenarioWorkloads.read(user.hasPath("workloads") ? user.getValue("workloads") : null,
        reference.getConfig("workload-kinds"), path, gpu.sms(), (key, message) -> problems.add(at(key, message)));
    PolicyChoice placement = policy(c, "placement");
    List<Settings.Vm> vms = vms(user, hosts);
    List<Settings.Rejection> rejected = new ArrayList<>();
    vms = place(vms, hosts, placement, duration, rejected, user.hasPath("hosts") && problems.isEmpty());
    SharingModes.Shared shared = null;
    if (user.hasPath("vms") && problems.isEmpty()) { // gpu.mode: the one GPU time-sliced, MIG instances or MPS
      shared = SharingModes.apply(c, user, reference.getConfig("scenario-defaults.vm-defaults"), gpu, hosts, vms,
          gpuPolicy, (key, message) -> problems.add(at(key, message)));
      hosts = shared.hosts();
      vms = shared.vms();
      gpuPolicy = shared.gpuPolicy();
    }
    tryPolicy(cpuPolicy, "scenario.scheduler.cpu");
    tryPolicy(memPolicy, "scenario.memory");
    if (space && hosts.size() + hosts.get(0).gpus() > 2) {
      problems.add(at("scenario.hosts", "a space-sharing policy (" + gpuPolicy.name() + ") runs on one host with "
          + "one GPU"));
    }
    if (problems.isEmpty() && space) {
      trySpacePolicy(gpuPolicy, vms);
    } else if (problems.isEmpty()) {
      vms = tryGpuPolicy(gpuPolicy, vms, user);
    }
    boolean slotMemory = memPolicy != null && memPolicy.needs(PolicyInput.GTT_COPIES);
    FaultPlan faults = ScenarioFaults.read(c, user, vms.stream().map(Settings.Vm::name).toList(), duration, seed,
        o.faults(), slotMemory,
        (key, message) -> problems.add(key.startsWith("--") ? key + ": " + message : at(key, message)));
    faults = fatalException(c, shared, faults, vms, duration);
    for (FaultPlan.Fault f : faults.faults()) { // a memory pressure shrinks a slot policy's shared capacity
      if (f.kind() != FaultPlan.Kind.MEMORY_PRESSURE || slotMemory) continue;
      problems.add(at("scenario.memory.policy", "a memory-pressure fault needs a slot memory policy (static-384, "
          + "static-512, static-1024, static-2048 or gballoon: the guests' shared global graphics memory), got "
          + (memPolicy == null ? "none" : memPolicy.spec().name())));
      break;
    }
    for (FaultPlan.Fault f : faults.faults()) { // on the target's own host
      if (f.kind() != FaultPlan.Kind.CORE_OFFLINE) continue;
      Settings.Vm target = vms.stream().filter(v -> v.name().equals(f.target())).findFirst().orElse(null);
      if (target == null) continue;
      Settings.Host h = hosts.get(target.host());
      if (h.cores() < 2) {
        String key = h.name().equals("host") ? "scenario.host.cores" : "scenario.hosts." + h.name() + ".cores";
        problems.add(at(key, "a core-offline fault needs at least 2 cores to move the vCPUs to, got " + h.cores()));
        break;
      }
    }
    return new Settings.Scenario(name, c.getString("description"), path.toString(), scale, duration, seed,
        hosts, gpu, gpuPolicy, cpuPolicy, memPolicy, fidelity, period, vms, custom.workloads(), faults, placement,
        rejected);
  }

  /** {@code gpu.fatal-exception}: one fatal GPU exception in a tenant, as the sharing mode contains it. */
  private FaultPlan fatalException(Config c, SharingModes.Shared shared, FaultPlan faults, List<Settings.Vm> vms,
      long duration) {
    long at = c.getDuration("gpu.fatal-exception.at").toNanos();
    String target = c.getString("gpu.fatal-exception.target");
    if (at == 0 && target.isEmpty()) return faults;
    if (vms.stream().noneMatch(v -> v.name().equals(target))) {
      problems.add(at("scenario.gpu.fatal-exception.target", "expected the name of a VM, one of "
          + vms.stream().map(Settings.Vm::name).toList() + ", got '" + target + "'"));
      return faults;
    }
    if (at <= 0 || at >= duration) {
      problems.add(at("scenario.gpu.fatal-exception.at", "expected a time inside the run (0s, duration), got "
          + c.getValue("gpu.fatal-exception.at").render()));
      return faults;
    }
    if (shared == null) return faults;
    int next = faults.faults().stream().mapToInt(FaultPlan.Fault::id).max().orElse(-1) + 1;
    List<FaultPlan.Fault> all = new ArrayList<>(faults.faults());
    all.addAll(SharingModes.fatalException(shared.mode(), target, at,
        c.getDuration("fault-defaults.reboot-after").toNanos(), vms, next));
    return new FaultPlan(all, faults.channel(), faults.pressureBytes());
  }

  private Settings.Gpu gpu(Config c, String key, String fullPath) {
    return new Settings.Gpu(positiveInt(c, key + ".sms", fullPath + ".sms"),
        positiveBytes(c, key + ".memory", fullPath + ".memory"),
        nonNegativeNanos(c, key + ".context-switch", fullPath + ".context-switch"),
        positiveInt(c, key + ".max-concurrent-kernels", fullPath + ".max-concurrent-kernels"));
  }

  /**
   * The hosts: {@code scenario.hosts.<name>} in file order, each over {@code host-defaults} and its {@code gpu} over
   * the scenario's; without {@code hosts}, the one host of {@code scenario.host}, named {@code host}. Every host's
   * cores lose {@code host.vcpu-switch} per context switch.
   */
  private List<Settings.Host> hosts(Config c, Config user, Settings.Gpu gpu) {
    long vcpuSwitch = nonNegativeNanos(c, "host.vcpu-switch", "scenario.host.vcpu-switch"); // the same on every host
    if (!user.hasPath("hosts") || user.getObject("hosts").isEmpty()) {
      if (user.hasPath("hosts")) problems.add(at("scenario.hosts", "expected at least one host (or leave it out)"));
      return List.of(new Settings.Host("host", positiveInt(c, "host.cores"), 1, gpu, vcpuSwitch));
    }
    if (user.hasPath("host")) {
      problems.add(at("scenario.host", "a scenario declares either its one host (host) or many (hosts), not both"));
    }
    Config template = reference.getConfig("scenario-defaults.host-defaults");
    List<String> names = new ArrayList<>(user.getObject("hosts").keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> fileHosts.contains(n) ? fileHosts.indexOf(n)
        : Integer.MAX_VALUE).thenComparingInt(n -> user.getObject("hosts").get(n).origin().lineNumber())
        .thenComparing(n -> n));
    List<Settings.Host> hosts = new ArrayList<>();
    for (String n : names) {
      String p = "scenario.hosts." + ConfigUtil.joinPath(n);
      Config h = user.getObject("hosts").toConfig().getConfig(ConfigUtil.joinPath(n)).withFallback(template);
      Config g = h.getConfig("gpu").withFallback(c.getConfig("gpu"));
      Config wrapped = ConfigFactory.empty().withValue("gpu", g.root());
      hosts.add(new Settings.Host(n, positiveInt(h, "cores", p + ".cores"), positiveInt(h, "gpus", p + ".gpus"),
          gpu(wrapped, "gpu", p + ".gpu"), vcpuSwitch));
    }
    return hosts;
  }

  /**
   * Each VM's host and GPU, and its vCPUs' cores on that host. With the single {@code host} every VM goes there
   * (GPU 0), unchecked, as before many hosts. With {@code hosts} the placement policy decides in arrival order
   * (start-delay, then file order) from the VM's request (a core per vCPU, its share, its memory-cap) and what each
   * GPU has free over the VM's stay ({@link PlacementPlan}); a VM that fits nowhere does not run and is reported in
   * summary.json ({@code placement.rejected}); the VMs that run are numbered again in file order.
   */
  private List<Settings.Vm> place(List<Settings.Vm> vms, List<Settings.Host> hosts, PolicyChoice choice,
      long duration, List<Settings.Rejection> rejected, boolean many) {
    Map<Integer, int[]> where = new java.util.HashMap<>();
    if (many) {
      PlacementPolicy policy;
      try {
        policy = choice.create(PolicyKind.PLACEMENT);
      } catch (IllegalArgumentException | IllegalStateException e) {
        problems.add(at("scenario.placement", "policy " + choice.name() + " is not usable: " + e.getMessage()));
        return vms;
      }
      PlacementPlan plan = new PlacementPlan(hosts.stream().map(h -> new PlacementPlan.Host(h.name(),
          1000L * h.cores(), h.gpus(), h.gpu().memoryBytes())).toList());
      List<Settings.Vm> byArrival = new ArrayList<>(vms);
      byArrival.sort(java.util.Comparator.comparingLong(Settings.Vm::startDelayNanos)
          .thenComparingInt(Settings.Vm::index));
      for (Settings.Vm vm : byArrival) {
        PlacementDecision d = plan.place(vm.index(), request(vm), vm.startDelayNanos(), vm.stopNanos(duration),
            pinnedHost.getOrDefault(vm.index(), -1), policy);
        if (d instanceof PlacementDecision.Placed p) {
          where.put(vm.index(), new int[] {p.host(), p.gpu()});
        } else {
          rejected.add(new Settings.Rejection(vm.name(), vm.startDelayNanos(),
              ((PlacementDecision.Rejected) d).reason()));
        }
      }
    } else {
      // one host, or problems already (then only the cores are checked, each VM against the host it names)
      for (Settings.Vm vm : vms) where.put(vm.index(), new int[] {pinnedHost.getOrDefault(vm.index(), 0), 0});
    }
    List<Settings.Vm> out = new ArrayList<>();
    int[] nextCore = new int[hosts.size()];
    for (Settings.Vm vm : vms) {
      int[] w = where.get(vm.index());
      if (w == null) continue;
      int hostCores = hosts.get(w[0]).cores();
      String p = "scenario.vms." + ConfigUtil.joinPath(vm.name());
      List<Integer> pinned = vm.cores();
      for (int core : pinned) {
        if (core < 0 || core >= hostCores) {
          problems.add(at(p + ".cores", "core " + core + " does not exist; the host has cores 0.." + (hostCores - 1)
              + (many ? " (scenario.hosts." + hosts.get(w[0]).name() + ".cores = " : " (scenario.host.cores = ")
              + hostCores + ")"));
        }
      }
      List<Integer> placed = new ArrayList<>();
      for (int i = 0; i < vcpuCounts.get(vm.index()); i++) {
        placed.add(pinned.isEmpty() ? nextCore[w[0]]++ % hostCores : pinned.get(i % pinned.size()));
      }
      Settings.Vm at = vm.placed(w[0], w[1], placed);
      out.add(new Settings.Vm(out.size(), at.name(), at.workload(), at.weight(), at.cores(), at.memoryCapBytes(),
          at.syncWait(), at.spinLimitNanos(), at.commandBuffer(), at.driverQueue(), at.startDelayNanos(),
          at.stopAfterNanos(), at.slaFps(), at.share(), at.presentSleep(), at.presentWait(), at.host(), at.gpu(),
          at.cpuMilli(), out.size()));
    }
    return out;
  }

  /** What a VM asks of its host: a core per vCPU, its GPU share (none when not set) and its memory cap. */
  static VmRequest request(Settings.Vm vm) {
    return new VmRequest(vm.name(), vm.cpuMilli(), Double.isNaN(vm.share()) ? 0 : Math.round(vm.share() * 1000),
        vm.memoryCapBytes());
  }

  /** The workload a VM names: the scenario's own, else the catalog's. */
  private Workload workload(String name) {
    Workload own = custom.workloads().get(name);
    return own != null ? own : WorkloadCatalog.get(name);
  }

  /**
   * Builds the GPU policy and adds every VM to it, as the run will: a rule only the policy knows (VGRIS shares
   * that sum above 1, a window that is not whole seconds) becomes a bad-input problem here, not a failed run.
   */
  private List<Settings.Vm> tryGpuPolicy(PolicyChoice choice, List<Settings.Vm> vms, Config user) {
    GpuPolicy policy = null;
    try {
      Map<Long, GpuPolicy> perGpu = new java.util.HashMap<>();
      for (Settings.Vm vm : vms) {
        // one policy per GPU, as the run builds them: a rule over a GPU's VMs (VGRIS shares) holds per GPU
        policy = perGpu.computeIfAbsent(((long) vm.host() << 32) | vm.gpu(), k -> choice.create(PolicyKind.GPU));
        policy.addVgpu(new VgpuParams(vm.index(), vm.name(), vm.weight(), vm.share(), vm.slaFps()));
      }
      if (policy == null) policy = choice.create(PolicyKind.GPU);
    } catch (IllegalArgumentException e) {
      problems.add(at("scenario.scheduler.gpu", "policy " + choice.name() + " rejects this scenario: "
          + e.getMessage()));
      return vms;
    } catch (IllegalStateException e) {
      problems.add(at("scenario.scheduler.gpu", "policy " + choice.name() + " is not usable: " + e.getMessage()));
      return vms;
    }
    return withGuestWait(choice, policy, vms, user);
  }

  /**
   * Builds a CPU or memory policy with its parameters, as the run will: a range only the policy checks (its
   * constructor) becomes a bad-input problem at the scenario's key, not a failed run.
   */
  private void tryPolicy(PolicyChoice choice, String path) {
    try {
      choice.spec().create(choice.params());
    } catch (IllegalArgumentException e) {
      problems.add(at(path, "policy " + choice.name() + " rejects its parameters: " + e.getMessage()));
    } catch (IllegalStateException e) {
      problems.add(at(path, "policy " + choice.name() + " is not usable: " + e.getMessage()));
    }
  }

  /**
   * A space-sharing policy (COMBO, PilotFish) shares the GPU between one game and best-effort jobs (combo.txt §3):
   * exactly one VM runs a COMBO game ({@code combo-<game>}, a {@link ComboGame}), and every other VM a workload whose
   * every kernel is CD or TC (the DNN and Parboil jobs, {@code combo-<job>}), as BE applications have no RT kernels.
   * The policy is built with its parameters, so a bad one is reported here.
   */
  private void trySpacePolicy(PolicyChoice choice, List<Settings.Vm> vms) {
    tryPolicy(choice, "scenario.scheduler.gpu");
    List<String> games = new ArrayList<>();
    for (Settings.Vm vm : vms) {
      Workload w = workload(vm.workload());
      String key = "scenario.vms." + ConfigUtil.joinPath(vm.name()) + ".workload";
      if (w instanceof ComboGame) {
        games.add(vm.name());
      } else if (!(w instanceof StepLoop loop) || !beKernelsOnly(loop)) {
        problems.add(at(key, "space policy " + choice.name() + " runs one game and best-effort jobs whose kernels "
            + "are all CD or TC (combo-<dnn> or combo-<parboil>, see `list`); '" + vm.workload() + "' is neither"));
      }
    }
    if (games.size() != 1) {
      problems.add(at("scenario.vms", "space policy " + choice.name() + " needs exactly one VM running a COMBO game "
          + "(combo-<game>, see `list`), got " + games.size() + (games.isEmpty() ? "" : ": " + games)));
    }
  }

  private static boolean beKernelsOnly(StepLoop loop) {
    for (Step s : loop.iteration()) {
      KernelSpec k = s instanceof Step.LaunchKernel l ? l.kernel() : s instanceof Step.SyncCall c ? c.kernel() : null;
      if (k != null && k.type() == KernelType.RT) return false;
    }
    return true;
  }

  /**
   * A policy that defines how guests wait for synchronous calls (FairGV's credit-poll polls, credit-hs and fairgv
   * spin hybridly) sets every VM's {@code sync-wait}; a VM that sets another one contradicts the policy.
   */
  private List<Settings.Vm> withGuestWait(PolicyChoice choice, GpuPolicy policy, List<Settings.Vm> vms,
      Config user) {
    if (!choice.needs(PolicyInput.GUEST_WAIT)) return vms;
    SyncWait wait = SyncWait.valueOf(((GuestWaitRule) policy).guestWait().name()); // the same three modes
    List<Settings.Vm> out = new ArrayList<>();
    for (Settings.Vm vm : vms) {
      String key = "vms." + ConfigUtil.joinPath(vm.name()) + ".sync-wait";
      if (user.hasPath(key) && vm.syncWait() != wait) {
        problems.add(at("scenario." + key, "policy " + policy.name() + " has its guests "
            + wait.name().toLowerCase(java.util.Locale.ROOT) + "; remove this key or pick another policy"));
      }
      out.add(new Settings.Vm(vm.index(), vm.name(), vm.workload(), vm.weight(), vm.cores(), vm.memoryCapBytes(),
          wait, vm.spinLimitNanos(), vm.commandBuffer(), vm.driverQueue(), vm.startDelayNanos(), vm.stopAfterNanos(),
          vm.slaFps(), vm.share(), vm.presentSleep(), vm.presentWait(), vm.host(), vm.gpu(), vm.cpuMilli(),
          vm.seedIndex()));
    }
    return out;
  }

  private List<Settings.Vm> vms(Config user, List<Settings.Host> hosts) {
    List<Settings.Vm> vms = new ArrayList<>();
    if (!user.hasPath("vms")) {
      problems.add(at("scenario.vms", "expected an object keyed by VM name with at least one VM"));
      return vms;
    }
    Config template = reference.getConfig("scenario-defaults.vm-defaults");
    // HOCON objects are unordered maps; a VM's index follows its line in the file so that indexes and core
    // placement are what the reader of the file expects.
    List<String> names = new ArrayList<>(user.getObject("vms").keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> fileVms.contains(n) ? fileVms.indexOf(n)
        : Integer.MAX_VALUE).thenComparingInt((String n) -> user.getObject("vms").get(n).origin().lineNumber())
        .thenComparing(n -> n));
    for (String vmName : names) {
      String p = "scenario.vms." + ConfigUtil.joinPath(vmName);
      Config vm = user.getObject("vms").toConfig().getConfig(ConfigUtil.joinPath(vmName)).withFallback(template);
      String workload = vm.getString("workload");
      if (!WorkloadCatalog.contains(workload) && !custom.declared().contains(workload)) {
        problems.add(at(p + ".workload", "unknown workload '" + workload + "'; see `list` for the valid names, or "
            + "define it under scenario.workloads"));
      }
      int weight = positiveInt(vm, "weight", p + ".weight");
      int vcpus = positiveInt(vm, "vcpus", p + ".vcpus");
      if (vcpus > MAX_VCPUS) {
        problems.add(at(p + ".vcpus", "expected at most " + MAX_VCPUS + " vCPUs (each is an actor), got " + vcpus));
        vcpus = 1;
      }
      // pinned cores as written: checked against the VM's host once it is placed (place)
      List<Integer> placed = new ArrayList<>();
      for (long core : vm.getLongList("cores")) placed.add((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, core)));
      vcpuCounts.put(vms.size(), Math.max(0, vcpus));
      String hostName = vm.getString("host");
      if (!hostName.isEmpty()) {
        int h = hosts.stream().map(Settings.Host::name).toList().indexOf(hostName);
        if (h < 0 || hosts.size() == 1 && hostName.equals("host")) {
          problems.add(at(p + ".host", "no host '" + hostName + "'; the hosts are "
              + hosts.stream().map(Settings.Host::name).toList()));
        } else {
          pinnedHost.put(vms.size(), h);
        }
      }
      long cap = vm.getBytes("memory-cap");
      if (cap <= 0) problems.add(at(p + ".memory-cap", "expected a size > 0"));
      String wait = vm.getString("sync-wait");
      boolean known = List.of("poll", "hybrid", "yield").contains(wait);
      if (!known) problems.add(at(p + ".sync-wait", "expected poll, hybrid or yield, got '" + wait + "'"));
      SyncWait syncWait = known ? SyncWait.valueOf(wait.toUpperCase(java.util.Locale.ROOT)) : SyncWait.HYBRID;
      long spin = vm.getDuration("spin-limit").toNanos();
      if (spin < 0) problems.add(at(p + ".spin-limit", "expected a duration >= 0"));
      int buffer = positiveInt(vm, "command-buffer", p + ".command-buffer");
      int driverQueue = positiveInt(vm, "driver-queue", p + ".driver-queue");
      long delay = vm.getDuration("start-delay").toNanos();
      if (delay < 0) problems.add(at(p + ".start-delay", "expected a duration >= 0"));
      long stopAfter = vm.getDuration("stop-after").toNanos();
      if (stopAfter < 0) problems.add(at(p + ".stop-after", "expected a duration >= 0 (0s: runs to the end)"));
      double slaFps = vm.getDouble("sla.fps");
      if (!(slaFps > 0)) problems.add(at(p + ".sla.fps", "expected a frame rate > 0, got " + slaFps));
      double share = vm.getDouble("share");
      if (!(share >= 0 && share <= 1)) {
        problems.add(at(p + ".share", "expected a GPU share in (0, 1] (0: not set), got " + share));
      }
      long sleepInitial = vm.getDuration("present-sleep.initial").toNanos();
      long sleepDecrease = vm.getDuration("present-sleep.decrease").toNanos();
      long sleepEvery = vm.getDuration("present-sleep.every").toNanos();
      if (sleepInitial < 0) problems.add(at(p + ".present-sleep.initial", "expected a duration >= 0"));
      if (sleepDecrease < 0) problems.add(at(p + ".present-sleep.decrease", "expected a duration >= 0"));
      if (sleepEvery <= 0) problems.add(at(p + ".present-sleep.every", "expected a duration > 0"));
      String presentWaitName = vm.getString("present-wait");
      Settings.PresentWait presentWait = switch (presentWaitName) {
        case "block" -> Settings.PresentWait.BLOCK;
        case "poll" -> Settings.PresentWait.POLL;
        default -> {
          problems.add(at(p + ".present-wait", "expected block or poll, got '" + presentWaitName + "'"));
          yield Settings.PresentWait.BLOCK;
        }
      };
      Settings.PresentSleep sleep = sleepInitial == 0 ? Settings.PresentSleep.NONE
          : new Settings.PresentSleep(Math.max(0, sleepInitial), Math.max(0, sleepDecrease), Math.max(1, sleepEvery));
      long cpuMilli = vm.getLong("cpu-milli");
      if (cpuMilli < 0) problems.add(at(p + ".cpu-milli", "expected thousandths of a core >= 0 (0: a core per vCPU)"));
      vms.add(new Settings.Vm(vms.size(), vmName, workload, weight, placed, cap, syncWait, spin, buffer,
          driverQueue, delay, stopAfter == 0 ? Long.MAX_VALUE : stopAfter, slaFps, share == 0 ? Double.NaN : share,
          sleep, presentWait, 0, 0, cpuMilli > 0 ? cpuMilli : 1000L * Math.max(0, vcpus), vms.size()));
    }
    return vms;
  }

  /** The policy a block names with its parameters typed: the scenario's values over the policy's defaults. */
  private PolicyChoice policy(Config c, String path) {
    PolicySpec<?> spec = policies.find(c.getString(path + ".policy")).orElseThrow().spec();
    Config block = c.getConfig(path);
    Map<String, Object> values = new LinkedHashMap<>();
    for (Param p : spec.params()) {
      String key = p.name();
      String full = "scenario." + path + "." + key;
      if (!block.hasPath(key)) {
        values.put(key, p.typedDefault());
        continue;
      }
      switch (p.type()) {
        case DURATION -> {
          long n = block.getDuration(key).toNanos();
          if (n <= 0) problems.add(at(full, "expected a duration > 0"));
          values.put(key, n);
        }
        case INTEGER -> {
          long n = block.getLong(key);
          if (n <= 0) problems.add(at(full, "expected an integer > 0, got " + n));
          values.put(key, n);
        }
        case REAL -> values.put(key, block.getDouble(key));
        case BYTES -> values.put(key, block.getBytes(key));
        default -> values.put(key, block.getValue(key).unwrapped().toString());
      }
    }
    return new PolicyChoice(spec, PolicyParams.of(values));
  }

  private int positiveInt(Config c, String key) {
    return positiveInt(c, key, "scenario." + key);
  }

  /** An int > 0; when it is not, the problem is recorded and 1 returned so later checks (core placement) go on. */
  private int positiveInt(Config c, String key, String fullPath) {
    long v = c.getLong(key);
    if (v <= 0) {
      problems.add(at(fullPath, "expected an integer > 0, got " + v));
      return 1;
    }
    if (v > Integer.MAX_VALUE) {
      problems.add(at(fullPath, "expected an integer from 1 to " + Integer.MAX_VALUE + ", got " + v));
      return 1;
    }
    return (int) v;
  }

  private long positiveNanos(Config c, String key) {
    long v = c.getDuration(key).toNanos();
    if (v <= 0) problems.add(at("scenario." + key, "expected a duration > 0, got " + c.getValue(key).render()));
    return v;
  }

  private long nonNegativeNanos(Config c, String key, String fullPath) {
    long v = c.getDuration(key).toNanos();
    if (v < 0) problems.add(at(fullPath, "expected a duration >= 0, got " + c.getValue(key).render()));
    return v;
  }

  private long positiveBytes(Config c, String key, String fullPath) {
    long v = c.getBytes(key);
    if (v <= 0) problems.add(at(fullPath, "expected a size > 0"));
    return v;
  }

  // ---------------------------------------------------------------- helpers

  private String at(String path, String message) {
    return file + ": " + path + ": " + message;
  }

  private void fail() throws ConfigProblems {
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
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
