package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValueType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.config.Settings.PolicyChoice;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;

/**
 * Reads a scenario file into {@link Settings.Scenario}. Structure is checked against the declared schema
 * ({@link ScenarioSchema}: the defaults in {@code reference.conf}), then semantics section by section (the hosts and
 * GPU here, {@link ScenarioVms}, {@link ScenarioPolicies}, {@link ScenarioWorkloads}, {@link ScenarioFaults}); every
 * problem is collected with its full key path ({@link Problems}) and reported at once.
 */
public final class ScenarioLoader {
  static final String ROOT = "scenario";

  private final Config reference;
  private final PolicyCatalog policies;
  private final String file;
  private final Problems problems;
  private final ScenarioSchema schema;

  private ScenarioLoader(Config reference, PolicyCatalog policies, String file) {
    this.reference = reference.getConfig("gpuemu");
    this.policies = policies;
    this.file = file;
    this.problems = new Problems(file);
    this.schema = new ScenarioSchema(this.reference, policies, problems);
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
    problems.fail();
    try {
      user = user.resolve();
    } catch (ConfigException e) {
      throw ConfigProblems.of(file + ": cannot resolve a substitution: " + e.getMessage());
    }
    for (String top : user.root().keySet()) {
      if (!top.equals(ROOT)) problems.report(top, "unknown top-level key; a scenario's keys live under 'scenario'");
    }
    if (!user.hasPath(ROOT) || user.getValue(ROOT).valueType() != ConfigValueType.OBJECT) {
      problems.report(ROOT, "expected an object holding the scenario (scenario { vms { ... } })");
      problems.fail();
    }
    int before = problems.size();
    Config scenario = withTrace(user.getConfig(ROOT), path);
    if (problems.size() > before) problems.fail(); // a trace that did not expand: its hosts and VMs are not there to check
    schema.checkStructure(scenario);
    problems.fail();
    Config merged = scenario.withFallback(reference.getConfig("scenario-defaults"));
    Settings.Scenario result = build(merged, scenario, path, overrides);
    problems.fail();
    return result;
  }

  /** The scenario with its trace window's hosts, workloads and VMs ({@link ClusterTraceScenario}), if it has one. */
  private Config withTrace(Config scenario, Path path) {
    if (!scenario.hasPath("trace") || scenario.getValue("trace").valueType() != ConfigValueType.OBJECT) return scenario;
    Config trace = scenario.getConfig("trace").withFallback(reference.getConfig("scenario-defaults.trace"));
    schema.checkAgainst(scenario.getValue("trace"), reference.getValue("scenario-defaults.trace"), ROOT + ".trace");
    if (!problems.isEmpty() || trace.getString("tasks-file").isBlank()) return scenario;
    for (String own : List.of("hosts", "host", "vms")) {
      if (scenario.hasPath(own)) problems.report(ROOT + "." + own, "a scenario with a trace gets its hosts and VMs from "
          + "the trace (scenario.trace); remove this key");
    }
    Config generated = ClusterTraceScenario.expand(trace, path, problems::report);
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

  // ---------------------------------------------------------------- semantics

  private Settings.Scenario build(Config c, Config user, Path path, Overrides o) {
    String fileName = path.getFileName().toString().replaceFirst("\\.conf$", "");
    String name = c.getString("name").isBlank() ? fileName : c.getString("name");
    double scale = o.timeScale() != null ? o.timeScale() : c.getDouble("time-scale");
    if (!(scale > 0) || Double.isInfinite(scale)) problems.report("scenario.time-scale", "expected a number > 0, got " + scale);
    long duration = o.durationNanos() != null ? o.durationNanos() : c.getDuration("duration").toNanos();
    if (duration <= 0) problems.report("scenario.duration", "expected a duration > 0, got " + c.getValue("duration").render());
    long seed = o.seed() != null ? o.seed() : c.getLong("seed");
    Settings.Gpu gpu = gpu(c, "gpu", "scenario.gpu");
    List<Settings.Host> hosts = hosts(c, user, gpu);
    ScenarioPolicies policyBlocks = new ScenarioPolicies(policies, problems);
    PolicyChoice gpuPolicy = policyBlocks.policy(c, "scheduler.gpu");
    PolicyChoice cpuPolicy = policyBlocks.policy(c, "scheduler.cpu");
    PolicyChoice memPolicy = policyBlocks.policy(c, "memory");
    boolean space = gpuPolicy.spec().kind() == PolicyKind.SPACE;
    Settings.Fidelity fidelity = fidelity(c);
    long period = problems.positiveNanos(c, "metrics.period");
    ScenarioWorkloads.Result custom = ScenarioWorkloads.read(
        user.hasPath("workloads") ? user.getValue("workloads") : null, reference.getConfig("workload-kinds"), path,
        gpu.sms(), problems::report);
    PolicyChoice placement = policyBlocks.policy(c, "placement");
    ScenarioVms vmSection = new ScenarioVms(reference.getConfig("scenario-defaults.vm-defaults"), problems, fileVms,
        custom.declared());
    List<Settings.Vm> vms = vmSection.read(user, hosts);
    List<Settings.Rejection> rejected = new ArrayList<>();
    vms = vmSection.place(vms, hosts, placement, duration, rejected, user.hasPath("hosts") && problems.isEmpty());
    SharingModes.Shared shared = null;
    if (user.hasPath("vms") && problems.isEmpty()) { // gpu.mode: the one GPU time-sliced, MIG instances or MPS
      shared = SharingModes.apply(c, user, reference.getConfig("scenario-defaults.vm-defaults"),
          new SharingModes.Unshared(gpu, hosts, vms, gpuPolicy), problems::report);
      hosts = shared.hosts();
      vms = shared.vms();
      gpuPolicy = shared.gpuPolicy();
    }
    policyBlocks.tryPolicy(cpuPolicy, "scenario.scheduler.cpu");
    policyBlocks.tryPolicy(memPolicy, "scenario.memory");
    vms = policyBlocks.tryGpuPolicy(gpuPolicy, space, vms, hosts, user, custom.workloads());
    boolean slotMemory = memPolicy != null && memPolicy.needs(PolicyInput.GTT_COPIES);
    ScenarioFaults.Run run = new ScenarioFaults.Run(vms.stream().map(Settings.Vm::name).toList(), duration, seed,
        slotMemory);
    FaultPlan faults = ScenarioFaults.read(c, user, run, o.faults(),
        (key, message) -> problems.add(key.startsWith("--") ? key + ": " + message : problems.at(key, message)));
    faults = fatalException(c, shared, faults, vms, duration);
    checkFaultsFit(faults, memPolicy, slotMemory, vms, hosts);
    return new Settings.Scenario(name, c.getString("description"), path.toString(), scale, duration, seed,
        hosts, gpu, gpuPolicy, cpuPolicy, memPolicy, fidelity, period, vms, custom.workloads(), faults, placement,
        rejected);
  }

  /** {@code scenario.fidelity}: the causal order, its horizon and the bounds a faithful run keeps. */
  private Settings.Fidelity fidelity(Config c) {
    double threshold = c.getDouble("fidelity.violation-threshold");
    if (!(threshold > 0)) problems.report("scenario.fidelity.violation-threshold", "expected a fraction > 0, got " + threshold);
    double rate = c.getDouble("fidelity.violation-rate");
    if (!(rate >= 0 && rate <= 1)) problems.report("scenario.fidelity.violation-rate", "expected a fraction in [0, 1], got " + rate);
    Causality.Order order = Causality.Order.of(c.getString("fidelity.order"));
    if (order == null) {
      problems.report("scenario.fidelity.order", "expected conservative or arrival, got "
          + c.getValue("fidelity.order").render());
      order = Causality.Order.CONSERVATIVE;
    }
    double lagShare = c.getDouble("fidelity.lag-share");
    if (!(lagShare >= 0 && lagShare < 1)) problems.report("scenario.fidelity.lag-share", "expected a fraction in [0, 1), got " + lagShare);
    int hostThreads = c.getInt("fidelity.host-threads");
    if (hostThreads < 0 || hostThreads > 256) {
      problems.report("scenario.fidelity.host-threads", "expected 0 (one order for the whole run) to 256 threads, got "
          + hostThreads);
    } else if (hostThreads > 0 && order != Causality.Order.CONSERVATIVE) {
      problems.report("scenario.fidelity.host-threads", "host threads need order = conservative (the arrival order "
          + "keeps its own two-thread pool), got " + hostThreads);
    }
    return new Settings.Fidelity(order, problems.positiveNanos(c, "fidelity.horizon"), lagShare,
        threshold, rate, problems.positiveNanos(c, "fidelity.liveness-timeout"), c.getLong("fidelity.order-seed"),
        Math.max(0, Math.min(256, hostThreads)));
  }

  /** A memory-pressure fault needs a slot memory policy; a core-offline fault a host with a core to move to. */
  private void checkFaultsFit(FaultPlan faults, PolicyChoice memPolicy, boolean slotMemory, List<Settings.Vm> vms,
      List<Settings.Host> hosts) {
    for (FaultPlan.Fault f : faults.faults()) { // a memory pressure shrinks a slot policy's shared capacity
      if (f.kind() != FaultPlan.Kind.MEMORY_PRESSURE || slotMemory) continue;
      problems.report("scenario.memory.policy", "a memory-pressure fault needs a slot memory policy (static-384, "
          + "static-512, static-1024, static-2048 or gballoon: the guests' shared global graphics memory), got "
          + (memPolicy == null ? "none" : memPolicy.spec().name()));
      break;
    }
    for (FaultPlan.Fault f : faults.faults()) { // on the target's own host
      if (f.kind() != FaultPlan.Kind.CORE_OFFLINE) continue;
      Settings.Vm target = vms.stream().filter(v -> v.name().equals(f.target())).findFirst().orElse(null);
      if (target == null) continue;
      Settings.Host h = hosts.get(target.host());
      if (h.cores() < 2) {
        String key = h.name().equals("host") ? "scenario.host.cores" : "scenario.hosts." + h.name() + ".cores";
        problems.report(key, "a core-offline fault needs at least 2 cores to move the vCPUs to, got " + h.cores());
        break;
      }
    }
  }

  /** {@code gpu.fatal-exception}: one fatal GPU exception in a tenant, as the sharing mode contains it. */
  private FaultPlan fatalException(Config c, SharingModes.Shared shared, FaultPlan faults, List<Settings.Vm> vms,
      long duration) {
    long at = c.getDuration("gpu.fatal-exception.at").toNanos();
    String target = c.getString("gpu.fatal-exception.target");
    if (at == 0 && target.isEmpty()) return faults;
    if (vms.stream().noneMatch(v -> v.name().equals(target))) {
      problems.report("scenario.gpu.fatal-exception.target", "expected the name of a VM, one of "
          + vms.stream().map(Settings.Vm::name).toList() + ", got '" + target + "'");
      return faults;
    }
    if (at <= 0 || at >= duration) {
      problems.report("scenario.gpu.fatal-exception.at", "expected a time inside the run (0s, duration), got "
          + c.getValue("gpu.fatal-exception.at").render());
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
    return new Settings.Gpu(problems.positiveInt(c, key + ".sms", fullPath + ".sms"),
        problems.positiveBytes(c, key + ".memory", fullPath + ".memory"),
        problems.nonNegativeNanos(c, key + ".context-switch", fullPath + ".context-switch"),
        problems.positiveInt(c, key + ".max-concurrent-kernels", fullPath + ".max-concurrent-kernels"));
  }

  /**
   * The hosts: {@code scenario.hosts.<name>} in file order, each over {@code host-defaults} and its {@code gpu} over
   * the scenario's; without {@code hosts}, the one host of {@code scenario.host}, named {@code host}. Every host's
   * cores lose {@code host.vcpu-switch} per context switch.
   */
  private List<Settings.Host> hosts(Config c, Config user, Settings.Gpu gpu) {
    long vcpuSwitch = problems.nonNegativeNanos(c, "host.vcpu-switch", "scenario.host.vcpu-switch"); // the same on every host
    if (!user.hasPath("hosts") || user.getObject("hosts").isEmpty()) {
      if (user.hasPath("hosts")) problems.report("scenario.hosts", "expected at least one host (or leave it out)");
      return List.of(new Settings.Host("host", problems.positiveInt(c, "host.cores", "scenario.host.cores"), 1, gpu, vcpuSwitch));
    }
    if (user.hasPath("host")) {
      problems.report("scenario.host", "a scenario declares either its one host (host) or many (hosts), not both");
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
      hosts.add(new Settings.Host(n, problems.positiveInt(h, "cores", p + ".cores"), problems.positiveInt(h, "gpus", p + ".gpus"),
          gpu(wrapped, "gpu", p + ".gpu"), vcpuSwitch));
    }
    return hosts;
  }
}
