package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.Settings.PolicyChoice;
import org.gpuemu.emulator.config.Settings.SyncWait;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.fairgv.GuestWaitRule;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.StepLoop;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * The policy blocks ({@code scheduler.gpu}, {@code scheduler.cpu}, {@code memory}, {@code placement}): each read
 * into its policy with typed parameters, then built as the run will build it, so that a rule only the policy knows
 * becomes a problem at the scenario's key, not a failed run.
 */
final class ScenarioPolicies {
  private final PolicyCatalog policies;
  private final Problems problems;

  ScenarioPolicies(PolicyCatalog policies, Problems problems) {
    this.policies = policies;
    this.problems = problems;
  }

  /** The policy a block names with its parameters typed: the scenario's values over the policy's defaults. */
  PolicyChoice policy(Config c, String path) {
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
          if (n <= 0) problems.report(full, "expected a duration > 0");
          values.put(key, n);
        }
        case INTEGER -> {
          long n = block.getLong(key);
          if (n <= 0) problems.report(full, "expected an integer > 0, got " + n);
          values.put(key, n);
        }
        case REAL -> values.put(key, block.getDouble(key));
        case BYTES -> values.put(key, block.getBytes(key));
        default -> values.put(key, block.getValue(key).unwrapped().toString());
      }
    }
    return new PolicyChoice(spec, PolicyParams.of(values));
  }

  /** The workload a VM names: the scenario's own ({@code custom}), else the catalog's. */
  private static Workload workload(Map<String, Workload> custom, String name) {
    Workload own = custom.get(name);
    return own != null ? own : WorkloadCatalog.get(name);
  }

  /**
   * Builds the GPU policy ({@code space}: a space-sharing one, chosen before a sharing mode) as the run will: a space
   * policy runs on one host with one GPU, over one game and best-effort jobs; a time-slicing one gets every VM.
   */
  List<Settings.Vm> tryGpuPolicy(PolicyChoice choice, boolean space, List<Settings.Vm> vms,
      List<Settings.Host> hosts, Config user, Map<String, Workload> custom) {
    if (space && hosts.size() + hosts.get(0).gpus() > 2) {
      problems.report("scenario.hosts", "a space-sharing policy (" + choice.name() + ") runs on one host with "
          + "one GPU");
    }
    if (problems.isEmpty() && space) {
      trySpacePolicy(choice, vms, custom);
    } else if (problems.isEmpty()) {
      return tryGpuPolicy(choice, vms, user);
    }
    return vms;
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
      problems.report("scenario.scheduler.gpu", "policy " + choice.name() + " rejects this scenario: "
          + e.getMessage());
      return vms;
    } catch (IllegalStateException e) {
      problems.report("scenario.scheduler.gpu", "policy " + choice.name() + " is not usable: " + e.getMessage());
      return vms;
    }
    return withGuestWait(choice, policy, vms, user);
  }

  /**
   * Builds a CPU or memory policy with its parameters, as the run will: a range only the policy checks (its
   * constructor) becomes a bad-input problem at the scenario's key, not a failed run.
   */
  void tryPolicy(PolicyChoice choice, String path) {
    try {
      choice.spec().create(choice.params());
    } catch (IllegalArgumentException e) {
      problems.report(path, "policy " + choice.name() + " rejects its parameters: " + e.getMessage());
    } catch (IllegalStateException e) {
      problems.report(path, "policy " + choice.name() + " is not usable: " + e.getMessage());
    }
  }

  /**
   * A space-sharing policy (COMBO, PilotFish) shares the GPU between one game and best-effort jobs (combo.txt §3):
   * exactly one VM runs a COMBO game ({@code combo-<game>}, a {@link ComboGame}), and every other VM a workload whose
   * every kernel is CD or TC (the DNN and Parboil jobs, {@code combo-<job>}), as BE applications have no RT kernels.
   * The policy is built with its parameters, so a bad one is reported here.
   */
  private void trySpacePolicy(PolicyChoice choice, List<Settings.Vm> vms, Map<String, Workload> custom) {
    tryPolicy(choice, "scenario.scheduler.gpu");
    List<String> games = new ArrayList<>();
    for (Settings.Vm vm : vms) {
      Workload w = workload(custom, vm.workload());
      String key = "scenario.vms." + ConfigUtil.joinPath(vm.name()) + ".workload";
      if (w instanceof ComboGame) {
        games.add(vm.name());
      } else if (!(w instanceof StepLoop loop) || !beKernelsOnly(loop)) {
        problems.report(key, "space policy " + choice.name() + " runs one game and best-effort jobs whose kernels "
            + "are all CD or TC (combo-<dnn> or combo-<parboil>, see `list`); '" + vm.workload() + "' is neither");
      }
    }
    if (games.size() != 1) {
      problems.report("scenario.vms", "space policy " + choice.name() + " needs exactly one VM running a COMBO game "
          + "(combo-<game>, see `list`), got " + games.size() + (games.isEmpty() ? "" : ": " + games));
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
        problems.report("scenario." + key, "policy " + policy.name() + " has its guests "
            + wait.name().toLowerCase(java.util.Locale.ROOT) + "; remove this key or pick another policy");
      }
      out.add(new Settings.Vm(vm.index(), vm.name(), vm.workload(), vm.weight(), vm.cores(), vm.memoryCapBytes(),
          wait, vm.spinLimitNanos(), vm.commandBuffer(), vm.driverQueue(), vm.startDelayNanos(), vm.stopAfterNanos(),
          vm.slaFps(), vm.share(), vm.presentSleep(), vm.presentWait(), vm.host(), vm.gpu(), vm.cpuMilli(),
          vm.seedIndex()));
    }
    return out;
  }
}
