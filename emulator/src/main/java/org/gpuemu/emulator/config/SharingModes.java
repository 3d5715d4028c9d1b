package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import org.gpuemu.emulator.config.Settings.PolicyChoice;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.FcfsPolicy;
import org.gpuemu.policies.nvidia.MigGpu;
import org.gpuemu.policies.nvidia.MigPlacement;
import org.gpuemu.policies.nvidia.MpsRules;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;

/**
 * How the one GPU of a scenario is shared ({@code scenario.gpu.mode}, docs/guides/sharing-modes.md), read after the
 * VMs are placed:
 * <ul>
 *   <li>{@code time-sliced} (default): one SM group over every SM, the GPU policy of {@code scheduler.gpu} deciding
 *       whose requests run (NVIDIA vGPU's schedulers are {@code vgpu-best-effort}, {@code vgpu-equal-share},
 *       {@code vgpu-fixed-share}).</li>
 *   <li>{@code mig}: each VM bound to a GPU instance of the profile it names ({@code vms.<vm>.mig-profile}, placed
 *       by {@link MigPlacement} on {@code gpu.mig.gpu}); an instance is a GPU unit of its own: its own SM group of the
 *       profile's SMs (of the whole GPU's {@code gpu.sms}, so a kernel runs sms/instance-SMs times longer), its own
 *       memory and its own hardware queue; no time slicing between instances and no SM or memory shared across them
 *       (MIG User Guide). What the fluid SM model does not have, MIG does not change either: copy engines and
 *       memory bandwidth are not modelled, so an instance's share of them is not either.</li>
 *   <li>{@code mps}: the VMs are MPS clients. Without active-thread percentages (all 100) their kernels run
 *       concurrently on one SM group over every SM, sharing the SMs equally by the fluid model, with no context
 *       switch between clients (one shared context: "The MPS server shares one set of scheduling resources between
 *       all of its clients", MPS guide "When to Use MPS") and up to {@code gpu.mps.max-concurrent-kernels} kernels
 *       at once. With percentages that add up to at most 100, each client runs on its own
 *       {@link MpsRules#activeSms} SMs, which no other client uses: the same units as MIG's, without MIG's memory
 *       partition. Percentages below 100 that add up to more than 100 make clients contend for SMs in a way NVIDIA
 *       does not document, so the emulator refuses them. MPS shares memory bandwidth and L2 between clients; the
 *       fluid SM model has neither, so MPS interference beyond the SMs is missing from every MPS figure.</li>
 * </ul>
 * {@code gpu.fatal-exception} injects one fatal GPU exception in a tenant and expands into the faults that mode's
 * containment gives ({@link #fatalException}).
 */
public final class SharingModes {
  private SharingModes() {}

  /** The three modes. */
  public enum Mode {
    TIME_SLICED("time-sliced"), MIG("mig"), MPS("mps");

    private final String key;

    Mode(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }

    static Mode of(String key) {
      for (Mode m : values()) if (m.key.equals(key)) return m;
      return null;
    }
  }

  /**
   * Whether {@code name} names a sharing mode other than the default time slicing ({@code mig}, {@code mps}): an
   * entry of {@code compare --policies} or {@code expect.policies} that sets {@code gpu.mode} instead of a policy.
   */
  public static boolean modeEntry(String name) {
    Mode m = Mode.of(name);
    return m != null && m != Mode.TIME_SLICED;
  }

  /** What the mode makes of the scenario. */
  public record Shared(Mode mode, List<Settings.Host> hosts, List<Settings.Vm> vms, PolicyChoice gpuPolicy,
      MpsRules.Architecture architecture) {}

  /** The scenario before its sharing mode: the GPU it declares, its hosts, its placed VMs and its GPU policy. */
  public record Unshared(Settings.Gpu gpu, List<Settings.Host> hosts, List<Settings.Vm> vms, PolicyChoice gpuPolicy) {}

  /** The one GPU's tenants under MIG or MPS, each VM's configuration beside it. */
  private record Tenants(Config c, Settings.Gpu gpu, Settings.Host host, List<Settings.Vm> vms,
      Map<String, Config> vmConfigs, PolicyChoice gpuPolicy, MpsRules.Architecture arch) {}

  /**
   * Applies {@code scenario.gpu.mode} ({@code c}: the scenario merged with its defaults, {@code user}: as written,
   * {@code vmTemplate}: a VM's defaults) to the placed VMs: returns the hosts (the one GPU partitioned or not), the
   * VMs (each on its unit) and the GPU policy; every problem goes to {@code problem} with its key path.
   */
  public static Shared apply(Config c, Config user, Config vmTemplate, Unshared in,
      BiConsumer<String, String> problem) {
    Settings.Gpu gpu = in.gpu();
    List<Settings.Host> hosts = in.hosts();
    List<Settings.Vm> vms = in.vms();
    PolicyChoice gpuPolicy = in.gpuPolicy();
    String modeKey = c.getString("gpu.mode");
    Mode mode = Mode.of(modeKey);
    MpsRules.Architecture arch = architecture(c, problem);
    if (mode == null) {
      problem.accept("scenario.gpu.mode", "expected time-sliced, mig or mps, got " + modeKey);
      return new Shared(Mode.TIME_SLICED, hosts, vms, gpuPolicy, arch);
    }
    Map<String, Config> vmConfigs = new HashMap<>();
    for (Settings.Vm vm : vms) {
      vmConfigs.put(vm.name(), user.getObject("vms").toConfig().getConfig(ConfigUtil.joinPath(vm.name()))
          .withFallback(vmTemplate));
    }
    if (mode == Mode.TIME_SLICED) return new Shared(mode, hosts, vms, gpuPolicy, arch);
    if (user.hasPath("hosts") || hosts.size() != 1 || hosts.get(0).gpus() != 1) {
      problem.accept("scenario.gpu.mode", "mig and mps share the one GPU of scenario.host; many hosts or GPUs are "
          + "not supported with them");
      return new Shared(mode, hosts, vms, gpuPolicy, arch);
    }
    if (user.hasPath("scheduler.gpu.policy") && !gpuPolicy.name().equals(FcfsPolicy.NAME)) {
      problem.accept("scenario.scheduler.gpu.policy", mode.key() + " does not time-slice between tenants (each "
          + "queues to its own instance or straight to the GPU); leave the GPU policy at fcfs, got " + gpuPolicy.name());
    }
    Tenants tenants = new Tenants(c, gpu, hosts.get(0), vms, vmConfigs, gpuPolicy, arch);
    return mode == Mode.MIG ? mig(tenants, problem) : mps(tenants, problem);
  }

  private static MpsRules.Architecture architecture(Config c, BiConsumer<String, String> problem) {
    String a = c.getString("gpu.mps.architecture");
    return switch (a) {
      case "volta-or-later" -> MpsRules.Architecture.VOLTA_OR_LATER;
      case "pre-volta" -> MpsRules.Architecture.PRE_VOLTA;
      default -> {
        problem.accept("scenario.gpu.mps.architecture", "expected volta-or-later or pre-volta, got " + a);
        yield MpsRules.Architecture.VOLTA_OR_LATER;
      }
    };
  }

  private static Shared mig(Tenants t, BiConsumer<String, String> problem) {
    Settings.Gpu gpu = t.gpu();
    Settings.Host host = t.host();
    List<Settings.Vm> vms = t.vms();
    PolicyChoice gpuPolicy = t.gpuPolicy();
    MpsRules.Architecture arch = t.arch();
    String gpuName = t.c().getString("gpu.mig.gpu");
    Optional<MigGpu> known = MigGpu.of(gpuName);
    if (known.isEmpty()) {
      problem.accept("scenario.gpu.mig.gpu", "expected one of " + MigGpu.names() + ", got " + gpuName);
      return new Shared(Mode.MIG, List.of(host), vms, gpuPolicy, arch);
    }
    MigGpu mig = known.get();
    if (gpu.sms() != mig.sms()) {
      problem.accept("scenario.gpu.sms", "MIG on " + mig.name() + " needs the whole GPU's " + mig.sms() + " SMs (the "
          + "kernels' solo durations are on them), got " + gpu.sms());
    }
    Map<String, MigPlacement.Instance> instances = instances(t, mig, problem);
    List<Settings.Gpu> units = new ArrayList<>();
    List<Settings.Vm> placed = new ArrayList<>();
    for (Settings.Vm vm : vms) {
      MigPlacement.Instance i = instances.get(vm.name());
      if (i == null) continue;
      long memory = (long) i.profile().memoryMiB() << 20;
      if (vm.memoryCapBytes() > memory) {
        problem.accept("scenario.vms." + ConfigUtil.joinPath(vm.name()) + ".memory-cap", "more than its "
            + i.profile().name() + " instance's " + i.profile().memoryMiB() + " MiB");
      }
      units.add(new Settings.Gpu(i.profile().sms(), memory, gpu.contextSwitchNanos(), gpu.maxConcurrentKernels(),
          gpu.sms()));
      placed.add(vm.placed(0, placed.size(), vm.cores()));
    }
    if (placed.size() != vms.size()) return new Shared(Mode.MIG, List.of(host), vms, gpuPolicy, arch);
    return new Shared(Mode.MIG, List.of(new Settings.Host(host.name(), host.cores(), units.size(), gpu,
        host.vcpuSwitchNanos(), units)), placed, gpuPolicy, arch);
  }

  /** Each VM's GPU instance of {@code mig}, by VM name (a VM whose instance could not be placed left out). */
  private static Map<String, MigPlacement.Instance> instances(Tenants t, MigGpu mig,
      BiConsumer<String, String> problem) {
    Map<String, Config> vmConfigs = t.vmConfigs();
    // instances without a start are placed largest first (memory slices, then compute slices), file order among
    // equals, so that small ones do not block the starts the large ones are restricted to; NVIDIA documents no
    // order for nvidia-smi mig -cgi without a placement, this is our choice
    List<Settings.Vm> order = new ArrayList<>(t.vms());
    order.sort(java.util.Comparator.comparingInt((Settings.Vm vm) -> vmConfigs.get(vm.name()).getInt("mig-start") >= 0
        ? 0 : 1).thenComparingInt(vm -> -mig.profile(vmConfigs.get(vm.name()).getString("mig-profile"))
        .map(pr -> pr.memorySlices() * 8 + pr.computeSlices()).orElse(0)));
    MigPlacement placement = new MigPlacement(mig);
    Map<String, MigPlacement.Instance> instances = new HashMap<>();
    for (Settings.Vm vm : order) {
      String p = "scenario.vms." + ConfigUtil.joinPath(vm.name());
      Config v = vmConfigs.get(vm.name());
      String profile = v.getString("mig-profile");
      int start = v.getInt("mig-start");
      if (profile.isEmpty()) {
        problem.accept(p + ".mig-profile", "with scenario.gpu.mode = mig every VM names its GPU instance profile, one "
            + "of " + mig.name() + "'s " + mig.profileNames());
        continue;
      }
      try {
        instances.put(vm.name(), placement.place(vm.name(), profile,
            start < 0 ? Optional.empty() : Optional.of(start)));
      } catch (IllegalArgumentException e) {
        problem.accept(p + (start >= 0 && e.getMessage().contains("may start") ? ".mig-start" : ".mig-profile"),
            e.getMessage());
      }
    }
    return instances;
  }

  private static Shared mps(Tenants t, BiConsumer<String, String> problem) {
    Config c = t.c();
    Settings.Gpu gpu = t.gpu();
    Settings.Host host = t.host();
    List<Settings.Vm> vms = t.vms();
    Map<String, Config> vmConfigs = t.vmConfigs();
    PolicyChoice gpuPolicy = t.gpuPolicy();
    MpsRules.Architecture arch = t.arch();
    int concurrency = c.getInt("gpu.mps.max-concurrent-kernels");
    if (concurrency <= 0) {
      problem.accept("scenario.gpu.mps.max-concurrent-kernels", "expected a count > 0, got " + concurrency);
      concurrency = 1;
    }
    List<Integer> percentages = new ArrayList<>();
    for (Settings.Vm vm : vms) {
      int pct = vmConfigs.get(vm.name()).getInt("mps-active-thread-percentage");
      if (pct < 1 || pct > 100) {
        problem.accept("scenario.vms." + ConfigUtil.joinPath(vm.name()) + ".mps-active-thread-percentage",
            "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE is 1-100 (MPS guide), got " + pct);
        pct = 100;
      }
      percentages.add(pct);
    }
    boolean uncapped = percentages.stream().allMatch(p -> p == 100);
    int sum = percentages.stream().mapToInt(Integer::intValue).sum();
    if (uncapped) {
      // every client's kernels on one group over every SM, no context switch between clients
      Settings.Gpu shared = new Settings.Gpu(gpu.sms(), gpu.memoryBytes(), 0, concurrency, gpu.sms());
      Settings.Host h = new Settings.Host(host.name(), host.cores(), 1, shared, host.vcpuSwitchNanos());
      return new Shared(Mode.MPS, List.of(h), vms, fcfs(concurrency), arch);
    }
    if (sum > 100) {
      problem.accept("scenario.vms", "MPS active-thread percentages below 100 that add up to more than 100 (here "
          + sum + ") make clients contend for SMs in a way NVIDIA does not document; the emulator runs either every "
          + "client at 100 or percentages that add up to at most 100");
      return new Shared(Mode.MPS, List.of(host), vms, gpuPolicy, arch);
    }
    List<Settings.Gpu> units = new ArrayList<>();
    List<Settings.Vm> placed = new ArrayList<>();
    for (int i = 0; i < vms.size(); i++) {
      units.add(new Settings.Gpu(MpsRules.activeSms(percentages.get(i), gpu.sms()), gpu.memoryBytes(), 0,
          concurrency, gpu.sms()));
      placed.add(vms.get(i).placed(0, i, vms.get(i).cores()));
    }
    return new Shared(Mode.MPS, List.of(new Settings.Host(host.name(), host.cores(), units.size(), gpu,
        host.vcpuSwitchNanos(), units)), placed, fcfs(concurrency), arch);
  }

  /** FCFS dispatch with a hardware queue as deep as the MPS concurrency: clients submit to the GPU directly. */
  private static PolicyChoice fcfs(int depth) {
    var spec = PolicyCatalog.builtIn().spec(PolicyKind.GPU, FcfsPolicy.NAME);
    Map<String, Object> values = new HashMap<>(spec.defaults().values());
    values.put(FcfsPolicy.MAX_INFLIGHT, (long) depth);
    return new PolicyChoice(spec, PolicyParams.of(values));
  }

  /**
   * The faults one fatal GPU exception in tenant {@code target} at {@code atNanos} becomes under {@code mode}: the
   * tenant's process dies and restarts (a {@code vm-reboot}: its calls in flight fail, its program starts again
   * after {@code fault-defaults.reboot-after}) in every mode; under MPS every other client on the GPU goes the same
   * way at the same time, since a fatal exception of one client reaches every client sharing the GPU on Volta and
   * later, and every client of the server before Volta (one GPU here: the same clients), and the server takes new
   * work again only once they have all exited (MPS guide, "Memory Protection and Error Containment"). Under time
   * slicing and MIG only the tenant: each VM has its own context (vGPU) or instance (MIG: "fault isolation" between
   * instances, MIG User Guide, Introduction); NVIDIA's vGPU guide says nothing of a guest's fatal exception reaching
   * another VM.
   */
  public static List<FaultPlan.Fault> fatalException(Mode mode, String target, long atNanos, long rebootNanos,
      List<Settings.Vm> vms, int firstId) {
    List<FaultPlan.Fault> faults = new ArrayList<>();
    int id = firstId;
    faults.add(new FaultPlan.Fault(id++, FaultPlan.Kind.VM_REBOOT, atNanos, target, rebootNanos));
    if (mode == Mode.MPS) {
      for (Settings.Vm vm : vms) {
        if (!vm.name().equals(target)) faults.add(new FaultPlan.Fault(id++, FaultPlan.Kind.VM_REBOOT, atNanos, vm.name(),
            rebootNanos));
      }
    }
    return faults;
  }
}
