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
 * The faults a run injects (issue 18), each at an emulated time on a named VM, with its heal: declared in the scenario
 * ({@code scenario.faults}), on the command line ({@code --fault KIND@TIME[:TARGET[:DURATION]]}) or drawn from the
 * run's seed ({@code --faults random --fault-rate 1/10s}). Pure: parsing, validation and the random draw, no actor;
 * the same seed draws the same faults, so a failing random run replays exactly.
 */
public record FaultPlan(List<Fault> faults) {

  public static final FaultPlan NONE = new FaultPlan(List.of());

  public FaultPlan {
    faults = List.copyOf(faults);
  }

  /**
   * A kind of fault, its name as written, and the reason its victims' requests fail with (null: none fails). What each
   * does and how it heals is written where it is carried out (SmGroupModel, VGpu, CpuScheduler).
   */
  public enum Kind {
    /** The target's next kernel never finishes; the TDR watchdog resets the engine after the heal delay. */
    GPU_HANG("gpu-hang", "gpu-reset"),
    /** The target's vGPU actor fails and is restarted by supervision, down for the heal delay (default 0). */
    VGPU_CRASH("vgpu-crash", "vgpu-crashed"),
    /** The target's vCPU 0 gets no core for the heal delay (stolen time), then goes on. */
    VCPU_STALL("vcpu-stall", null),
    /**
     * The emulator itself stops for the heal delay, read as WALL time: a dispatcher thread blocks, as a GC pause or a
     * descheduled thread would stop it. Nothing in the model happens (the target names no victim); what it tests is
     * the run's order and its fidelity verdict (issue 17). Never drawn at random.
     */
    EMULATOR_STALL("emulator-stall", null),
    /**
     * Cluster runs only ({@code run --cluster N}): the node that runs the target VM's host dies at once, as a
     * {@code kill -9} of its JVM would end it; the cluster detects it and restarts its hosts' VMs on the survivors,
     * and their requests in flight fail with {@code node-lost} (cluster/ClusterRun). Never drawn at random; a run of
     * one JVM refuses it.
     */
    NODE_CRASH("node-crash", "node-lost");

    private final String label;
    private final String reason;

    Kind(String label, String reason) {
      this.label = label;
      this.reason = reason;
    }

    public String label() {
      return label;
    }

    /** The failure reason of the requests it fails; null when it fails none. */
    public String reason() {
      return reason;
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
   * for a vCPU stall, 0 for a crash (supervision restarts at once), {@code emulatorStallWallNanos} of wall time for a
   * stall of the emulator.
   */
  public record Defaults(long tdrNanos, long stallNanos, long emulatorStallWallNanos) {
    long of(Kind kind) {
      return switch (kind) {
        case GPU_HANG -> tdrNanos;
        case VCPU_STALL -> stallNanos;
        case VGPU_CRASH -> 0;
        case EMULATOR_STALL -> emulatorStallWallNanos;
        case NODE_CRASH -> 0; // a node does not come back; its hosts restart elsewhere
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
    return new FaultPlan(numbered);
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
    return check(spec.substring(0, atSign), rest[0], target, rest.length > 2 ? rest[2] : null, vms, durationNanos,
        defaults, (key, message) -> problems.accept(where, message));
  }

  /**
   * One fault of a scenario's list, from its keys' raw values ({@code heal} null: the kind's default); {@code problems}
   * hears the key ({@code kind}, {@code at}, {@code target}, {@code heal-after}) and what is wrong.
   */
  public static Optional<Fault> check(String kind, String at, String target, String heal, List<String> vms,
      long durationNanos, Defaults defaults, BiConsumer<String, String> problems) {
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
    if (heal != null && (healNanos < 0 || healNanos == 0 && k.orElse(Kind.VGPU_CRASH) != Kind.VGPU_CRASH)) {
      problem.accept("heal-after", "expected a duration with a unit, > 0 (>= 0 for vgpu-crash), e.g. 1s, got '"
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
    if (everyNanos <= 0) throw new IllegalArgumentException("fault rate interval must be > 0");
    SplittableRandom rng = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 18);
    List<Fault> drawn = new ArrayList<>();
    Kind[] kinds = {Kind.GPU_HANG, Kind.VGPU_CRASH, Kind.VCPU_STALL}; // the model's faults, not the emulator's
    long at = 0;
    while (true) {
      at += Math.max(1, Math.round(-Math.log(1 - rng.nextDouble()) * everyNanos));
      if (at >= durationNanos) return drawn;
      Kind kind = kinds[rng.nextInt(kinds.length)];
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
