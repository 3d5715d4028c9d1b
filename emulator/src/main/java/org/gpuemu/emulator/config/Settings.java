package org.gpuemu.emulator.config;

import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;

/** Typed, validated settings of one run. All durations are emulated nanoseconds. */
public final class Settings {
  private Settings() {}

  /**
   * A whole scenario, after command-line overrides.
   *
   * @param hosts     the hosts, in declaration order (one, named {@code host}, for a scenario with the single
   *                  {@code scenario.host}); each VM names its host and GPU by index ({@link Vm#host}, {@link Vm#gpu})
   * @param workloads the workloads the scenario defines itself ({@code scenario.workloads}), by name; a VM's
   *                  workload name is looked up there first, then in the catalog ({@link #workload})
   * @param faults    the faults the run injects (none: {@link FaultPlan#NONE})
   * @param placement the placement policy that put each VM on its host (and puts it again after a host is lost)
   * @param rejected  VMs the placement found no room for, in arrival order: they do not run
   */
  public record Scenario(String name, String description, String file, double timeScale, long durationNanos,
      long seed, List<Host> hosts, Gpu gpu, PolicyChoice gpuPolicy, PolicyChoice cpuPolicy, PolicyChoice memoryPolicy,
      Fidelity fidelity, long metricsPeriodNanos, List<Vm> vms, Map<String, Workload> workloads, FaultPlan faults,
      PolicyChoice placement, List<Rejection> rejected) {
    public Scenario {
      hosts = List.copyOf(hosts);
      vms = List.copyOf(vms);
      workloads = Map.copyOf(workloads);
      rejected = List.copyOf(rejected);
    }

    /**
     * A scenario of one host made by hand (tests): named {@code name}, on {@code host} with {@code gpu}, running
     * {@code vms}; the rest set on the builder. Unset: no description or file, time scale 1, no faults, no workloads
     * of its own, first-fit placement, nothing rejected.
     */
    public static Builder oneHost(String name, Host host, Gpu gpu, List<Vm> vms) {
      return new Builder(name, host, gpu, vms);
    }

    /** Builds a scenario of one host ({@link #oneHost}). */
    public static final class Builder {
      private final String name;
      private final Host host;
      private final Gpu gpu;
      private final List<Vm> vms;
      private String description = "";
      private String file = "";
      private double timeScale = 1;
      private long durationNanos;
      private long seed;
      private PolicyChoice gpuPolicy;
      private PolicyChoice cpuPolicy;
      private PolicyChoice memoryPolicy;
      private Fidelity fidelity;
      private long metricsPeriodNanos;

      private Builder(String name, Host host, Gpu gpu, List<Vm> vms) {
        this.name = name;
        this.host = host;
        this.gpu = gpu;
        this.vms = vms;
      }

      public Builder file(String file) {
        this.file = file;
        return this;
      }

      /** {@code durationNanos} of model time at {@code timeScale}, its programs seeded by {@code seed}. */
      public Builder run(double timeScale, long durationNanos, long seed) {
        this.timeScale = timeScale;
        this.durationNanos = durationNanos;
        this.seed = seed;
        return this;
      }

      public Builder policies(PolicyChoice gpuPolicy, PolicyChoice cpuPolicy, PolicyChoice memoryPolicy) {
        this.gpuPolicy = gpuPolicy;
        this.cpuPolicy = cpuPolicy;
        this.memoryPolicy = memoryPolicy;
        return this;
      }

      /** How the run is ordered and judged, and its metrics period. */
      public Builder fidelity(Fidelity fidelity, long metricsPeriodNanos) {
        this.fidelity = fidelity;
        this.metricsPeriodNanos = metricsPeriodNanos;
        return this;
      }

      public Scenario build() {
        return new Scenario(name, description, file, timeScale, durationNanos, seed, List.of(host.withGpu(gpu)), gpu,
            gpuPolicy, cpuPolicy, memoryPolicy, fidelity, metricsPeriodNanos, vms, Map.of(), FaultPlan.NONE,
            new PolicyChoice("first-fit", PolicyParams.of(Map.of())), List.of());
      }
    }

    /** The same scenario, run for {@code nanos} of emulated time. */
    public Scenario withDuration(long nanos) {
      return new Scenario(name, description, file, timeScale, nanos, seed, hosts, gpu, gpuPolicy, cpuPolicy,
          memoryPolicy, fidelity, metricsPeriodNanos, vms, workloads, faults, placement, rejected);
    }

    /** The same scenario with other VMs (a node's share of a cluster run). */
    public Scenario withVms(List<Vm> vms) {
      return new Scenario(name, description, file, timeScale, durationNanos, seed, hosts, gpu, gpuPolicy, cpuPolicy,
          memoryPolicy, fidelity, metricsPeriodNanos, vms, workloads, faults, placement, rejected);
    }

    /** The first host: the only one of a scenario with {@code scenario.host}. */
    public Host host() {
      return hosts.get(0);
    }

    /** Whether the scenario declares several hosts or GPUs (then summary.json's totals add up per-GPU figures). */
    public boolean manyGpus() {
      return hosts.size() > 1 || hosts.get(0).gpus() > 1;
    }

    /** A number for the GPU {@code vm} runs on, unique in the run: a host's GPUs are numbered on from the previous's. */
    public int gpuNumber(Vm vm) {
      int n = 0;
      for (int h = 0; h < vm.host(); h++) n += hosts.get(h).gpus();
      return n + vm.gpu();
    }

    /** The workload a VM names: the scenario's own of that name, else the catalog's. */
    public Workload workload(String name) {
      Workload own = workloads.get(name);
      return own != null ? own : WorkloadCatalog.get(name);
    }

    /** Whether the GPU policy is a space-sharing one (COMBO, PilotFish): a render and a BE SM group. */
    public boolean spaceShared() {
      return gpuPolicy.spec().kind() == PolicyKind.SPACE;
    }
  }

  /** A VM the placement policy found no room for: it does not run. */
  public record Rejection(String vm, long atNanos, String reason) {}

  /**
   * A host: its name ({@code host} for a scenario's single {@code scenario.host}), physical cores, GPUs (each with
   * its own scheduler, SM groups and memory) and their settings, and the CPU time a core loses when it switches
   * context ({@code vcpu-switch}; the derivation is beside its default in reference.conf).
   */
  public record Host(String name, int cores, int gpus, Gpu gpu, long vcpuSwitchNanos, List<Gpu> partitions) {
    public Host {
      partitions = List.copyOf(partitions);
      if (!partitions.isEmpty() && partitions.size() != gpus) {
        throw new IllegalArgumentException("host " + name + ": " + partitions.size() + " partitions for " + gpus + " GPUs");
      }
    }

    /** A host whose GPUs all have the settings {@code gpu}. */
    public Host(String name, int cores, int gpus, Gpu gpu, long vcpuSwitchNanos) {
      this(name, cores, gpus, gpu, vcpuSwitchNanos, List.of());
    }

    /**
     * The settings of GPU unit {@code g}: {@link #gpu} unless the host's GPU is partitioned (MIG instances, MPS
     * clients capped by their active-thread percentage: {@code config/SharingModes}), each partition a unit of its
     * own with its SMs of the whole GPU's.
     */
    public Gpu gpuOf(int g) {
      return partitions.isEmpty() ? gpu : partitions.get(g);
    }

    /** The single host of a scenario with {@code scenario.host}, its GPU set later ({@link #withGpu}). */
    public Host(int cores) {
      this(cores, 0);
    }

    /** As {@link #Host(int)}, its cores losing {@code vcpuSwitchNanos} per context switch. */
    public Host(int cores, long vcpuSwitchNanos) {
      this("host", cores, 1, null, vcpuSwitchNanos);
    }

    public Host withGpu(Gpu g) {
      return gpu != null ? this : new Host(name, cores, gpus, g, vcpuSwitchNanos, partitions);
    }

    /** The name of the host's actor: {@code host} for the single host, else {@code host-<name>}. */
    public String actorName() {
      return name.equals("host") ? "host" : "host-" + name;
    }
  }

  /**
   * A GPU unit's settings: its SMs, memory, context-switch cost and concurrency; {@code totalSms} is the whole GPU's
   * SMs, against which kernels' solo durations are given (a partition of fewer SMs runs them longer, {@code
   * FluidModel.workNanos}); equal to {@code sms} for a whole GPU.
   */
  public record Gpu(int sms, long memoryBytes, long contextSwitchNanos, int maxConcurrentKernels, int totalSms) {
    /** A whole GPU. */
    public Gpu(int sms, long memoryBytes, long contextSwitchNanos, int maxConcurrentKernels) {
      this(sms, memoryBytes, contextSwitchNanos, maxConcurrentKernels, sms);
    }
  }

  /**
   * A policy picked by name from the policy catalog (built-in or plugin), with its parameters (defaults merged).
   * {@link #needs} is where the emulator learns which inputs to wire for it: from the policy's declaration, never
   * from the class of the object it built.
   */
  public record PolicyChoice(PolicySpec<?> spec, PolicyParams params) {
    /** A built-in (or class path) policy by name (tests). */
    public PolicyChoice(String name, PolicyParams params) {
      this(PolicyCatalog.builtIn().find(name).orElseThrow(
          () -> new IllegalArgumentException("unknown policy '" + name + "'")).spec(), params);
    }

    public String name() {
      return spec.name();
    }

    /** Whether the policy declared this input. */
    public boolean needs(PolicyInput input) {
      return spec.declares(input);
    }

    /** A new instance of the policy, which must be of {@code kind}. */
    public <P> P create(PolicyKind<P> kind) {
      if (spec.kind() != kind) throw new IllegalStateException(spec.name() + " is a " + spec.kind() + ", not a " + kind);
      return kind.type().cast(spec.create(params));
    }
  }

  /**
   * How a run orders its events and how its fidelity is judged (reference.conf, {@code fidelity}).
   *
   * @param order how the actors' inboxes order events
   * @param horizonWallNanos how far behind the wall clock the model may run (wall ns) for at most
   *     {@code lagShare} of its events
   * @param lagShare the share of events that may be handled more than the horizon behind
   * @param violationThreshold arrival order: the largest violation allowed, as a fraction of the emulated unit
   * @param violationRate arrival order: the share of events allowed to be violations
   */
  public record Fidelity(org.gpuemu.emulator.clock.Causality.Order order, long horizonWallNanos, double lagShare,
      double violationThreshold, double violationRate, long livenessTimeoutNanos, long orderSeed, int hostThreads) {
    /** The same rules with {@code threads} host threads (0: one causal order for the whole run, one thread). */
    public Fidelity withHostThreads(int threads) {
      return new Fidelity(order, horizonWallNanos, lagShare, violationThreshold, violationRate, livenessTimeoutNanos,
          orderSeed, threads);
    }

    /** With the default tie order ({@code order-seed = 0}), one causal order for the whole run (no host threads). */
    public Fidelity(org.gpuemu.emulator.clock.Causality.Order order, long horizonWallNanos, double lagShare,
        double violationThreshold, double violationRate, long livenessTimeoutNanos) {
      this(order, horizonWallNanos, lagShare, violationThreshold, violationRate, livenessTimeoutNanos, 0, 0);
    }

    /** The defaults of reference.conf (tests). */
    public static Fidelity defaults(long livenessTimeoutNanos) {
      return new Fidelity(org.gpuemu.emulator.clock.Causality.Order.CONSERVATIVE, 100_000_000L, 0.01, 0.1, 0.001,
          livenessTimeoutNanos);
    }
  }

  /**
   * A sleep the guest agent inserts before every Present while the GPU policy leaves Present alone, as VGRIS does
   * in Figure 8: {@code initialNanos} at the VM's start, {@code decreaseNanos} less after every {@code everyNanos},
   * never below 0. {@link #NONE} inserts nothing.
   */
  public record PresentSleep(long initialNanos, long decreaseNanos, long everyNanos) {
    public static final PresentSleep NONE = new PresentSleep(0, 0, 1_000_000_000L);

    /** Whether the agent sleeps before Present at all (a sleep schedule that starts above 0). */
    public boolean set() {
      return initialNanos > 0;
    }

    /** The sleep before a Present issued {@code sinceStart} after the VM started. */
    public long at(long sinceStart) {
      if (decreaseNanos == 0) return initialNanos;
      long steps = Math.max(0, sinceStart) / everyNanos;
      // steps beyond initial / decrease have brought it to 0 (and would overflow the product)
      return steps >= initialNanos / decreaseNanos + 1 ? 0 : Math.max(0, initialNanos - steps * decreaseNanos);
    }
  }

  /** How a vCPU waits for a synchronous GPU call. */
  public enum SyncWait { POLL, HYBRID, YIELD }

  /**
   * How a vCPU waits while its Present is blocked (the command buffer is full): {@code BLOCK} gives the core away;
   * {@code POLL} keeps spinning on it, as a Windows guest's Direct3D runtime and graphics driver poll the GPU's
   * progress when the render-ahead limit is reached (the vCPU holds its core, competing with the vCPUs sharing it).
   */
  public enum PresentWait { BLOCK, POLL }

  /**
   * One VM.
   *
   * @param index dense index in file order; also its vGPU's index
   * @param cores the physical core of each vCPU (already resolved from pinning)
   * @param driverQueue requests the driver's command buffer holds for this VM at once
   * @param share the VM's GPU share for proportional-share policies; NaN when the scenario sets none
   * @param stopAfterNanos how long after its start the VM's program stops; {@link Long#MAX_VALUE}: never
   * @param presentSleep a fixed sleep the guest agent inserts before each Present (vgris Figure 8)
   * @param presentWait how its vCPU waits while Present is blocked
   * @param host its host's index, {@code gpu} its GPU's on that host, {@code cpuMilli} the CPU it asks of the host
   * @param seedIndex its index in the whole scenario: its program's seed and its actors' names (the same as
   *     {@code index} except in a node's share of a cluster run)
   */
  public record Vm(int index, String name, String workload, int weight, List<Integer> cores, long memoryCapBytes,
      SyncWait syncWait, long spinLimitNanos, int commandBuffer, int driverQueue, long startDelayNanos,
      long stopAfterNanos, double slaFps, double share, PresentSleep presentSleep, PresentWait presentWait,
      int host, int gpu, long cpuMilli, int seedIndex) {
    public Vm {
      cores = List.copyOf(cores);
    }

    /** This VM placed on GPU {@code gpu} of host {@code host}, its vCPUs on {@code cores} of that host. */
    public Vm placed(int host, int gpu, List<Integer> cores) {
      return new Vm(index, name, workload, weight, cores, memoryCapBytes, syncWait, spinLimitNanos, commandBuffer,
          driverQueue, startDelayNanos, stopAfterNanos, slaFps, share, presentSleep, presentWait, host, gpu, cpuMilli,
          seedIndex);
    }

    /**
     * This VM as VM {@code newIndex} on host {@code newHost} of a node's share of a cluster run: its program keeps its
     * seed and its actors their names ({@link #seedIndex}), so that it runs as in the whole scenario.
     */
    public Vm onNode(int newIndex, int newHost) {
      return new Vm(newIndex, name, workload, weight, cores, memoryCapBytes, syncWait, spinLimitNanos, commandBuffer,
          driverQueue, startDelayNanos, stopAfterNanos, slaFps, share, presentSleep, presentWait, newHost, gpu,
          cpuMilli, seedIndex);
    }

    /**
     * A VM made by hand (tests): VM {@code index} named {@code name} running {@code workload} with a vCPU on each of
     * {@code cores}; the rest set on the builder. Unset: weight 1, no memory cap, hybrid spinning, the spin limit,
     * render-ahead limit and driver queue of reference.conf's {@code vm-defaults}, starting at 0 and never stopping,
     * no SLA, no share, no Present sleep, its vCPU giving its core away while Present is blocked, on the first GPU of
     * the first host, asking for a core per vCPU.
     */
    public static Builder builder(int index, String name, String workload, List<Integer> cores) {
      return new Builder(index, name, workload, cores);
    }

    /** Builds a VM ({@link #builder}). */
    public static final class Builder {
      /** reference.conf's VM defaults: a hand-made VM spins, buffers and queues as a scenario's VM does unset. */
      private static final com.typesafe.config.Config VM_DEFAULTS = com.typesafe.config.ConfigFactory
          .defaultReference().getConfig("gpuemu.scenario-defaults.vm-defaults");
      private final int index;
      private final String name;
      private final String workload;
      private final List<Integer> cores;
      private int weight = 1;
      private long memoryCapBytes;
      private SyncWait syncWait = SyncWait.HYBRID;
      private long spinLimitNanos = VM_DEFAULTS.getDuration("spin-limit").toNanos();
      private int commandBuffer = VM_DEFAULTS.getInt("command-buffer");
      private int driverQueue = VM_DEFAULTS.getInt("driver-queue");
      private long startDelayNanos;
      private long stopAfterNanos = Long.MAX_VALUE;
      private double slaFps;
      private double share = Double.NaN;
      private PresentSleep presentSleep = PresentSleep.NONE;

      private Builder(int index, String name, String workload, List<Integer> cores) {
        this.index = index;
        this.name = name;
        this.workload = workload;
        this.cores = cores;
      }

      public Builder weight(int weight) {
        this.weight = weight;
        return this;
      }

      public Builder memoryCap(long bytes) {
        this.memoryCapBytes = bytes;
        return this;
      }

      /** How its vCPUs wait for a synchronous call, spinning at most {@code spinLimitNanos}. */
      public Builder syncWait(SyncWait syncWait, long spinLimitNanos) {
        this.syncWait = syncWait;
        this.spinLimitNanos = spinLimitNanos;
        return this;
      }

      /** The guest's render-ahead limit and the requests the driver's command buffer holds for it. */
      public Builder buffers(int commandBuffer, int driverQueue) {
        this.commandBuffer = commandBuffer;
        this.driverQueue = driverQueue;
        return this;
      }

      /** Starts {@code startDelayNanos} into the run and stops {@code stopAfterNanos} later. */
      public Builder window(long startDelayNanos, long stopAfterNanos) {
        this.startDelayNanos = startDelayNanos;
        this.stopAfterNanos = stopAfterNanos;
        return this;
      }

      public Builder slaFps(double slaFps) {
        this.slaFps = slaFps;
        return this;
      }

      public Builder share(double share) {
        this.share = share;
        return this;
      }

      public Builder presentSleep(PresentSleep presentSleep) {
        this.presentSleep = presentSleep;
        return this;
      }

      public Vm build() {
        return new Vm(index, name, workload, weight, cores, memoryCapBytes, syncWait, spinLimitNanos, commandBuffer,
            driverQueue, startDelayNanos, stopAfterNanos, slaFps, share, presentSleep, PresentWait.BLOCK, 0, 0,
            1000L * cores.size(), index);
      }
    }

    public int vcpus() {
      return cores.size();
    }

    /** When the VM's program stops in a run that ends at {@code runEndNanos}: its stop-after or the run's end. */
    public long stopNanos(long runEndNanos) {
      return stopAfterNanos == Long.MAX_VALUE ? runEndNanos : Math.min(runEndNanos, startDelayNanos + stopAfterNanos);
    }
  }
}
