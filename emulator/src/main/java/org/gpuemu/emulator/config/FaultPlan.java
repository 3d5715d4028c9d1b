package org.gpuemu.emulator.config;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/**
 * The faults a run injects, each at an emulated time on a named VM, with its heal: declared in the scenario
 * ({@code scenario.faults}), on the command line ({@code --fault KIND@TIME[:TARGET[:DURATION]]}) or drawn from the
 * run's seed ({@code --faults random --fault-rate 1/10s}). Pure: parsing, validation and the random draw, no actor;
 * the same seed draws the same faults, so a failing random run replays exactly.
 */
public record FaultPlan(List<Fault> faults, Channel channel, long pressureBytes) {

  public static final FaultPlan NONE = new FaultPlan(List.of());

  /** reference.conf's {@code fault-defaults.memory-pressure-size}: Dom0's own high memory again (tests). */
  public static final long PRESSURE_BYTES = 384L << 20;

  public FaultPlan {
    faults = List.copyOf(faults);
    if (pressureBytes <= 0) throw new IllegalArgumentException("memory-pressure size must be > 0");
  }

  /** A plan with reference.conf's channel settings ({@link Channel#DEFAULTS}) and memory-pressure size. */
  public FaultPlan(List<Fault> faults) {
    this(faults, Channel.DEFAULTS, PRESSURE_BYTES);
  }

  /** A plan with reference.conf's memory-pressure size. */
  public FaultPlan(List<Fault> faults, Channel channel) {
    this(faults, channel, PRESSURE_BYTES);
  }

  /**
   * The guest-to-vGPU channel of a VM that a message fault targets: the guest waits {@code timeoutNanos} for the vGPU
   * to acknowledge a message, doubling the wait at each of its {@code attempts} (RFC 6298 §5.5's back-off), then fails
   * the request with {@code timed-out}; {@code delayNanos}: how late a message-delay fault delivers each message.
   */
  public record Channel(long timeoutNanos, int attempts, long delayNanos) {
    /** reference.conf's fault-defaults (tests). */
    public static final Channel DEFAULTS = new Channel(200_000_000L, 3, 300_000_000L);

    /** How long after sending a request the guest gives up on it: the sum of its attempts' waits. */
    public long giveUpNanos() {
      return timeoutNanos * ((1L << attempts) - 1);
    }
  }

  /** Whether a message fault targets VM {@code vm}: its channel then acknowledges every message and times out. */
  public boolean channelFaulted(String vm) {
    return faults.stream().anyMatch(f -> f.kind().onChannel() && f.target().equals(vm));
  }

  /**
   * A kind of fault: its name as written, the reason its victims' requests fail with (null: none fails), whom those
   * are ({@link Scope}), what its heal-after means ({@link Heal}) and whether a random plan draws it. What each does
   * and how it heals is written where it is carried out (SmGroupModel, VgpuFaults, CpuScheduler, ... :
   * docs/guides/faults-and-soak.md has the table).
   */
  public enum Kind {
    /** The target's next kernel never finishes; the TDR watchdog resets the engine after the heal delay. */
    GPU_HANG("gpu-hang", "gpu-reset", Scope.VM, Heal.DURATION, true),
    /** The target's vGPU actor fails and is restarted by supervision, down for the heal delay (default 0). */
    VGPU_CRASH("vgpu-crash", "vgpu-crashed", Scope.VM, Heal.DOWN_TIME, true),
    /** The target's vCPU 0 gets no core for the heal delay (stolen time), then goes on. */
    VCPU_STALL("vcpu-stall", null, Scope.VM, Heal.DURATION, true),
    /** The target's vCPU 0 actor fails and is restarted from the VM's record of it; its core request re-driven. */
    VCPU_CRASH("vcpu-crash", null, Scope.VM, Heal.NONE, true),
    /** The target's VM actor fails and is restarted with its children kept; it is on no request's path. */
    VM_CRASH("vm-crash", null, Scope.VM, Heal.NONE, true),
    /** The target's guest agent fails; a Present it held fails, its mode is asked for again. */
    AGENT_CRASH("agent-crash", "agent-crashed", Scope.VM, Heal.NONE, true),
    /** The GPU scheduler fails: a fresh policy, the vGPUs asked for what they had queued and running. */
    GPU_SCHEDULER_CRASH("gpu-scheduler-crash", null, Scope.HOST, Heal.NONE, true),
    /** The target's vCPU 0's core scheduler fails: a fresh CPU policy, every request on it re-driven. */
    CPU_SCHEDULER_CRASH("cpu-scheduler-crash", null, Scope.HOST, Heal.NONE, true),
    /** The target's SM group fails: the engine is reset, every kernel on it fails. */
    SMGROUP_CRASH("smgroup-crash", "smgroup-crashed", Scope.HOST, Heal.NONE, true),
    /** The GPU memory actor fails; the allocations (the policy's page tables) survive, its timer is re-armed. */
    MEMORY_CRASH("memory-crash", null, Scope.HOST, Heal.NONE, true),
    /** The metrics hub fails; the period in progress is lost from the timeline, the run's totals survive. */
    METRICS_CRASH("metrics-crash", null, Scope.HOST, Heal.NONE, true),
    /**
     * The target VM crashes and reboots: every call in flight fails, its program starts again from its first step
     * the heal delay later (reboot-after).
     */
    VM_REBOOT("vm-reboot", "vm-crashed", Scope.VM, Heal.DURATION, true),
    /**
     * The emulator itself stops for the heal delay, read as WALL time: a dispatcher thread blocks, as a GC pause or a
     * descheduled thread would stop it. Nothing in the model happens (the target names no victim); what it tests is
     * the run's order and its fidelity verdict. Never drawn at random.
     */
    EMULATOR_STALL("emulator-stall", null, Scope.HOST, Heal.DURATION, false),
    /**
     * For the heal delay, every message the target's vCPUs send their vGPU (launch, synchronous call, flush) arrives
     * {@link Channel#delayNanos} late; one later than the guest's give-up is dropped by the vGPU and fails.
     */
    MESSAGE_DELAY("message-delay", "timed-out", Scope.VM, Heal.DURATION, true),
    /** For the heal delay, every such message arrives twice; the vGPU runs each request once (by its id). */
    MESSAGE_DUPLICATE("message-duplicate", null, Scope.VM, Heal.DURATION, true),
    /** For the heal delay, every such message is lost; the guest's timeout sends it again or fails it. */
    MESSAGE_LOSS("message-loss", "timed-out", Scope.VM, Heal.DURATION, true),
    /**
     * The core the target's vCPU 0 is pinned to goes offline for the heal delay: every vCPU pinned to it, and its host
     * work, moves to the first other core, and the vCPUs move back when it is online again. Nothing fails.
     */
    CORE_OFFLINE("core-offline", null, Scope.HOST, Heal.DURATION, true),
    /**
     * For the heal delay, the host withdraws the top {@link FaultPlan#pressureBytes} of the guests' high global
     * graphics memory (gpu/GpuMemory, GttMemoryPolicy.withdraw): what VMs held there is evicted, their allocations
     * beyond what is left are refused with the reason, and the memory policy adapts (gBalloon expands within the rest).
     * Only under a slot memory policy (static-384 ... static-2048, gballoon): the others have no shared capacity.
     */
    MEMORY_PRESSURE("memory-pressure", null, Scope.HOST, Heal.DURATION, true),
    /**
     * Cluster runs only ({@code run --cluster N}): the node that runs the target VM's host dies at once, as a
     * {@code kill -9} of its JVM would end it; the cluster detects it and restarts its hosts' VMs on the survivors,
     * and their requests in flight fail with {@code node-lost} (cluster/ClusterRun). Never drawn at random; a run of
     * one JVM refuses it.
     */
    NODE_CRASH("node-crash", "node-lost", Scope.HOST, Heal.NONE, false);

    /** Whether it strikes the guest-to-vGPU channel: the target VM's channel then acknowledges and times out. */
    public boolean onChannel() {
      return this == MESSAGE_DELAY || this == MESSAGE_DUPLICATE || this == MESSAGE_LOSS;
    }

    /** Whose requests a fault's failures are: the target VM's, or any VM's (a shared actor). */
    public enum Scope { VM, HOST }

    /**
     * What heal-after means: how long the fault lasts (> 0, a default per kind), how long a crashed actor stays down
     * (>= 0, default 0), or nothing (supervision restarts at once; absent or 0).
     */
    public enum Heal { DURATION, DOWN_TIME, NONE }

    private final String label;
    private final String reason;
    private final Scope scope;
    private final Heal heal;
    private final boolean drawn;

    Kind(String label, String reason, Scope scope, Heal heal, boolean drawn) {
      this.label = label;
      this.reason = reason;
      this.scope = scope;
      this.heal = heal;
      this.drawn = drawn;
    }

    public String label() {
      return label;
    }

    /** The failure reason of the requests it fails; null when it fails none. */
    public String reason() {
      return reason;
    }

    public Scope scope() {
      return scope;
    }

    public Heal heal() {
      return heal;
    }

    public static Optional<Kind> named(String label) {
      return Arrays.stream(values()).filter(k -> k.label.equals(label)).findFirst();
    }

    /** Whether a run of one JVM can carry it out (all but node-crash, which needs a cluster). */
    public boolean inOneJvm() {
      return this != NODE_CRASH;
    }

    static String names() {
      return Arrays.stream(values()).map(Kind::label).sorted().toList().toString();
    }

    /** The kinds a random plan draws from: the model's faults. */
    public static List<Kind> drawn() {
      return Arrays.stream(values()).filter(k -> k.drawn).toList();
    }
  }

  /**
   * One fault: {@code id} its place in the plan, injected at {@code atNanos} on VM {@code target} (its name), healed
   * {@code healAfterNanos} later (a hang: the watchdog's delay from the hung kernel's start).
   */
  public record Fault(int id, Kind kind, long atNanos, String target, long healAfterNanos) {
    public Fault {
      if (atNanos < 0 || healAfterNanos < 0) throw new IllegalArgumentException("negative fault time");
    }
  }

  /**
   * The heal delay of a fault that names none: {@code tdrNanos} for a hang (Windows' TDR delay, 2 s: the
   * TdrDelay registry value's default, learn.microsoft.com "Timeout Detection and Recovery (TDR)"), {@code stallNanos}
   * for a vCPU stall, {@code rebootNanos} for a VM's reboot, 0 for a crash (supervision restarts at once),
   * {@code emulatorStallWallNanos} of wall time for a stall of the emulator, {@code messageFaultNanos} for a fault of
   * the guest-to-vGPU channel, {@code coreOfflineNanos} for a core offline, {@code memoryPressureNanos} for a
   * memory pressure.
   */
  public record Defaults(long tdrNanos, long stallNanos, long rebootNanos, long emulatorStallWallNanos,
      long messageFaultNanos, long coreOfflineNanos, long memoryPressureNanos) {
    /** The heal delay of a {@code kind} fault that names none. */
    public long of(Kind kind) {
      return switch (kind) {
        case MEMORY_PRESSURE -> memoryPressureNanos;
        case CORE_OFFLINE -> coreOfflineNanos;
        case MESSAGE_DELAY, MESSAGE_DUPLICATE, MESSAGE_LOSS -> messageFaultNanos;
        case GPU_HANG -> tdrNanos;
        case VCPU_STALL -> stallNanos;
        case VM_REBOOT -> rebootNanos;
        case EMULATOR_STALL -> emulatorStallWallNanos;
        default -> 0;
      };
    }
  }

  /** What the command line adds: {@code --fault}s as written, {@code --faults} (null: none) and {@code --fault-rate}. */
  public record Cli(List<String> faults, String mode, String rate) {
    public static final Cli NONE = new Cli(List.of(), null, null);

    public Cli {
      faults = List.copyOf(faults);
    }
  }

  public boolean isEmpty() {
    return faults.isEmpty();
  }

  /** This plan with {@code more} after its faults, renumbered in order. */
  public FaultPlan plus(List<Fault> more) {
    List<Fault> all = new ArrayList<>(faults);
    all.addAll(more);
    List<Fault> numbered = new ArrayList<>();
    for (Fault f : all) numbered.add(new Fault(numbered.size(), f.kind(), f.atNanos(), f.target(), f.healAfterNanos()));
    return new FaultPlan(numbered, channel, pressureBytes);
  }

  /**
   * One command-line fault, {@code KIND@TIME[:TARGET[:DURATION]]} (no target: the first VM); empty, with the problem
   * told to {@code problems} (where, what), when it is not one.
   */
  public static Optional<Fault> parseCli(String spec, List<String> vms, long durationNanos, Defaults defaults,
      BiConsumer<String, String> problems) {
    String where = "--fault " + spec;
    int atSign = spec.indexOf('@');
    if (atSign < 0) {
      problems.accept(where, "expected KIND@TIME[:TARGET[:DURATION]], e.g. gpu-hang@2s:vm2:1s");
      return Optional.empty();
    }
    String[] rest = spec.substring(atSign + 1).split(":", -1);
    if (rest.length > 3) {
      problems.accept(where, "expected KIND@TIME[:TARGET[:DURATION]], e.g. gpu-hang@2s:vm2:1s");
      return Optional.empty();
    }
    String target = rest.length > 1 ? rest[1] : vms.isEmpty() ? "" : vms.get(0);
    return check(new Entry(spec.substring(0, atSign), rest[0], target, rest.length > 2 ? rest[2] : null), vms,
        durationNanos, defaults, (key, message) -> problems.accept(where, message));
  }

  /** One fault's keys as written: its kind, time, target VM and heal-after ({@code heal} null: the kind's default). */
  public record Entry(String kind, String at, String target, String heal) {}

  /**
   * One fault of a scenario's list, from its keys' raw values, in a run of {@code vms} lasting {@code durationNanos};
   * {@code problems} hears the key ({@code kind}, {@code at}, {@code target}, {@code heal-after}) and what is wrong.
   */
  public static Optional<Fault> check(Entry entry, List<String> vms, long durationNanos, Defaults defaults,
      BiConsumer<String, String> problems) {
    String kind = entry.kind();
    String at = entry.at();
    String target = entry.target();
    String heal = entry.heal();
    List<String> found = new ArrayList<>();
    BiConsumer<String, String> problem = (key, message) -> {
      found.add(key);
      problems.accept(key, message);
    };
    Optional<Kind> k = Kind.named(kind);
    if (k.isEmpty()) problem.accept("kind", "unknown fault kind '" + kind + "'; expected one of " + Kind.names());
    if (!vms.contains(target)) problem.accept("target", "unknown VM '" + target + "'; expected one of " + vms);
    long atNanos = duration(at).orElse(-1L);
    if (atNanos < 0 || atNanos >= durationNanos) {
      problem.accept("at", "expected an emulated time with a unit within the run [0s, " + durationNanos / 1e9
          + "s), e.g. 2s, got '" + at + "'");
    }
    long healNanos = heal == null ? -1 : duration(heal).orElse(-1L);
    Kind.Heal rule = k.map(Kind::heal).orElse(Kind.Heal.DOWN_TIME);
    if (heal != null && (healNanos < 0 || healNanos == 0 && rule == Kind.Heal.DURATION)) {
      problem.accept("heal-after", "expected a duration with a unit, > 0 (>= 0 for vgpu-crash), e.g. 1s, got '"
          + heal + "'");
    } else if (heal != null && healNanos > 0 && rule == Kind.Heal.NONE) {
      problem.accept("heal-after", "a " + kind + " restarts at once under supervision: no heal-after (or 0s), got '"
          + heal + "'");
    }
    if (!found.isEmpty()) return Optional.empty();
    return Optional.of(new Fault(0, k.get(), atNanos, target, heal == null ? defaults.of(k.get()) : healNanos));
  }

  /**
   * Faults drawn from {@code seed}: a Poisson process of one fault per {@code everyNanos} on average over the run, each
   * of a kind and on a VM drawn uniformly, healed after its kind's default. The same arguments give the same faults.
   */
  public static List<Fault> random(long seed, long everyNanos, long durationNanos, List<String> vms, Defaults defaults) {
    return random(seed, everyNanos, durationNanos, vms, defaults, Kind.drawn());
  }

  /** As {@link #random(long, long, long, List, Defaults)}, drawing from {@code kinds} (a 1-core host: no core-offline). */
  public static List<Fault> random(long seed, long everyNanos, long durationNanos, List<String> vms, Defaults defaults,
      List<Kind> kinds) {
    if (everyNanos <= 0) throw new IllegalArgumentException("fault rate interval must be > 0");
    // Not seed * golden gamma: SplittableRandom steps its state by that same gamma, so seed s + k drew seed s's
    // faults shifted by k draws (explore's consecutive seeds got near-copies of one schedule). The salt 18 keeps
    // this stream apart from any other generator seeded from the run's seed.
    SplittableRandom rng = new SplittableRandom(new SplittableRandom(seed).nextLong() + 18);
    List<Fault> drawn = new ArrayList<>();
    long at = 0;
    while (true) {
      at += Math.max(1, Math.round(-Math.log(1 - rng.nextDouble()) * everyNanos));
      if (at >= durationNanos) return drawn;
      Kind kind = kinds.get(rng.nextInt(kinds.size()));
      drawn.add(new Fault(drawn.size(), kind, at, vms.get(rng.nextInt(vms.size())), defaults.of(kind)));
    }
  }

  /** A fault rate {@code N/DURATION} (e.g. {@code 1/10s}) as the mean interval in nanoseconds; empty when it is not. */
  public static Optional<Long> interval(String rate) {
    String[] parts = rate.split("/", -1);
    if (parts.length != 2) return Optional.empty();
    try {
      long n = Long.parseLong(parts[0].trim());
      Optional<Long> per = duration(parts[1]);
      if (n <= 0 || per.isEmpty() || per.get() <= 0) return Optional.empty();
      return Optional.of(per.get() / n);
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** A duration with a unit (HOCON's: 2s, 500ms), in nanoseconds; empty without a unit or when unreadable. */
  public static Optional<Long> duration(String text) {
    if (text == null || !text.trim().matches("-?[0-9.]+\\s*[a-zA-Z]+")) return Optional.empty();
    try {
      return Optional.of(ConfigFactory.parseString("d = \"" + text.trim() + "\"").getDuration("d").toNanos());
    } catch (ConfigException e) {
      return Optional.empty();
    }
  }
}
