package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuemu.emulator.config.Settings.PolicyChoice;
import org.gpuemu.emulator.config.Settings.SyncWait;
import org.gpuemu.policies.placement.PlacementDecision;
import org.gpuemu.policies.placement.PlacementPlan;
import org.gpuemu.policies.placement.PlacementPolicy;
import org.gpuemu.policies.placement.VmRequest;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * The {@code scenario.vms} section: each VM's settings over {@code vm-defaults}, in the order of the file's lines,
 * then their placement on the hosts and their vCPUs' cores. Problems are recorded with their full key path.
 */
final class ScenarioVms {
  /** More vCPUs per VM than any hypervisor offers is a typo, and each would be an actor. */
  static final int MAX_VCPUS = 1024;

  private final Config template;
  private final Problems problems;
  /** The VMs the file itself declares, in the order of their lines (before --set moves a key's line). */
  private final List<String> fileVms;
  /** The workloads the scenario declares itself (scenario.workloads). */
  private final Set<String> declared;
  /** Each VM's vCPUs and the host it is pinned to, by its index in file order (vms, then place). */
  private final Map<Integer, Integer> vcpuCounts = new java.util.HashMap<>();
  private final Map<Integer, Integer> pinnedHost = new java.util.HashMap<>();

  ScenarioVms(Config template, Problems problems, List<String> fileVms, Set<String> declared) {
    this.template = template;
    this.problems = problems;
    this.fileVms = fileVms;
    this.declared = declared;
  }

  /** The VMs of {@code user}'s {@code scenario.vms}, each over the defaults, numbered in the file's order. */
  List<Settings.Vm> read(Config user, List<Settings.Host> hosts) {
    List<Settings.Vm> vms = new ArrayList<>();
    if (!user.hasPath("vms")) {
      problems.report("scenario.vms", "expected an object keyed by VM name with at least one VM");
      return vms;
    }
    // HOCON objects are unordered maps; a VM's index follows its line in the file so that indexes and core
    // placement are what the reader of the file expects.
    List<String> names = new ArrayList<>(user.getObject("vms").keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> fileVms.contains(n) ? fileVms.indexOf(n)
        : Integer.MAX_VALUE).thenComparingInt((String n) -> user.getObject("vms").get(n).origin().lineNumber())
        .thenComparing(n -> n));
    for (String vmName : names) {
      Config vm = user.getObject("vms").toConfig().getConfig(ConfigUtil.joinPath(vmName)).withFallback(template);
      vms.add(vm(vms.size(), vmName, vm, hosts));
    }
    return vms;
  }

  /** One VM's settings ({@code vm}, over the defaults) as the VM numbered {@code index}. */
  private Settings.Vm vm(int index, String vmName, Config vm, List<Settings.Host> hosts) {
    String p = "scenario.vms." + ConfigUtil.joinPath(vmName);
    String workload = vm.getString("workload");
    if (!WorkloadCatalog.contains(workload) && !declared.contains(workload)) {
      problems.report(p + ".workload", "unknown workload '" + workload + "'; see `list` for the valid names, or "
          + "define it under scenario.workloads");
    }
    int weight = problems.positiveInt(vm, "weight", p + ".weight");
    int vcpus = problems.positiveInt(vm, "vcpus", p + ".vcpus");
    if (vcpus > MAX_VCPUS) {
      problems.report(p + ".vcpus", "expected at most " + MAX_VCPUS + " vCPUs (each is an actor), got " + vcpus);
      vcpus = 1;
    }
    // pinned cores as written: checked against the VM's host once it is placed (place)
    List<Integer> placed = new ArrayList<>();
    for (long core : vm.getLongList("cores")) placed.add((int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, core)));
    vcpuCounts.put(index, Math.max(0, vcpus));
    pinHost(index, vm.getString("host"), p, hosts);
    long cap = vm.getBytes("memory-cap");
    if (cap <= 0) problems.report(p + ".memory-cap", "expected a size > 0");
    SyncWait syncWait = syncWait(vm, p);
    long spin = vm.getDuration("spin-limit").toNanos();
    if (spin < 0) problems.report(p + ".spin-limit", "expected a duration >= 0");
    int buffer = problems.positiveInt(vm, "command-buffer", p + ".command-buffer");
    int driverQueue = problems.positiveInt(vm, "driver-queue", p + ".driver-queue");
    long delay = vm.getDuration("start-delay").toNanos();
    if (delay < 0) problems.report(p + ".start-delay", "expected a duration >= 0");
    long stopAfter = vm.getDuration("stop-after").toNanos();
    if (stopAfter < 0) problems.report(p + ".stop-after", "expected a duration >= 0 (0s: runs to the end)");
    double slaFps = vm.getDouble("sla.fps");
    if (!(slaFps > 0)) problems.report(p + ".sla.fps", "expected a frame rate > 0, got " + slaFps);
    double share = vm.getDouble("share");
    if (!(share >= 0 && share <= 1)) {
      problems.report(p + ".share", "expected a GPU share in (0, 1] (0: not set), got " + share);
    }
    Settings.PresentSleep sleep = presentSleep(vm, p);
    Settings.PresentWait presentWait = presentWait(vm, p);
    long cpuMilli = vm.getLong("cpu-milli");
    if (cpuMilli < 0) problems.report(p + ".cpu-milli", "expected thousandths of a core >= 0 (0: a core per vCPU)");
    return new Settings.Vm(index, vmName, workload, weight, placed, cap, syncWait, spin, buffer,
        driverQueue, delay, stopAfter == 0 ? Long.MAX_VALUE : stopAfter, slaFps, share == 0 ? Double.NaN : share,
        sleep, presentWait, 0, 0, cpuMilli > 0 ? cpuMilli : 1000L * Math.max(0, vcpus), index);
  }

  /** A VM pinned to a host by name ({@code host}; empty: placed by the placement policy). */
  private void pinHost(int index, String hostName, String p, List<Settings.Host> hosts) {
    if (!hostName.isEmpty()) {
      int h = hosts.stream().map(Settings.Host::name).toList().indexOf(hostName);
      if (h < 0 || hosts.size() == 1 && hostName.equals("host")) {
        problems.report(p + ".host", "no host '" + hostName + "'; the hosts are "
            + hosts.stream().map(Settings.Host::name).toList());
      } else {
        pinnedHost.put(index, h);
      }
    }
  }

  private SyncWait syncWait(Config vm, String p) {
    String wait = vm.getString("sync-wait");
    return switch (wait) {
      case "poll" -> SyncWait.POLL;
      case "hybrid" -> SyncWait.HYBRID;
      case "yield" -> SyncWait.YIELD;
      default -> {
        problems.report(p + ".sync-wait", "expected poll, hybrid or yield, got '" + wait + "'");
        yield SyncWait.HYBRID;
      }
    };
  }

  /** {@code present-sleep}: none when its initial sleep is 0. */
  private Settings.PresentSleep presentSleep(Config vm, String p) {
    long sleepInitial = vm.getDuration("present-sleep.initial").toNanos();
    long sleepDecrease = vm.getDuration("present-sleep.decrease").toNanos();
    long sleepEvery = vm.getDuration("present-sleep.every").toNanos();
    if (sleepInitial < 0) problems.report(p + ".present-sleep.initial", "expected a duration >= 0");
    if (sleepDecrease < 0) problems.report(p + ".present-sleep.decrease", "expected a duration >= 0");
    if (sleepEvery <= 0) problems.report(p + ".present-sleep.every", "expected a duration > 0");
    return sleepInitial == 0 ? Settings.PresentSleep.NONE
        : new Settings.PresentSleep(Math.max(0, sleepInitial), Math.max(0, sleepDecrease), Math.max(1, sleepEvery));
  }

  private Settings.PresentWait presentWait(Config vm, String p) {
    String presentWaitName = vm.getString("present-wait");
    return switch (presentWaitName) {
      case "block" -> Settings.PresentWait.BLOCK;
      case "poll" -> Settings.PresentWait.POLL;
      default -> {
        problems.report(p + ".present-wait", "expected block or poll, got '" + presentWaitName + "'");
        yield Settings.PresentWait.BLOCK;
      }
    };
  }

  /**
   * Each VM's host and GPU, and its vCPUs' cores on that host. With the single {@code host} every VM goes there
   * (GPU 0), unchecked, as before many hosts. With {@code hosts} the placement policy decides in arrival order
   * (start-delay, then file order) from the VM's request (a core per vCPU, its share, its memory-cap) and what each
   * GPU has free over the VM's stay ({@link PlacementPlan}); a VM that fits nowhere does not run and is reported in
   * summary.json ({@code placement.rejected}); the VMs that run are numbered again in file order.
   */
  List<Settings.Vm> place(List<Settings.Vm> vms, List<Settings.Host> hosts, PolicyChoice choice,
      long duration, List<Settings.Rejection> rejected, boolean many) {
    Map<Integer, int[]> where = new java.util.HashMap<>();
    if (many) {
      PlacementPolicy policy;
      try {
        policy = choice.create(PolicyKind.PLACEMENT);
      } catch (IllegalArgumentException | IllegalStateException e) {
        problems.report("scenario.placement", "policy " + choice.name() + " is not usable: " + e.getMessage());
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
          problems.report(p + ".cores", "core " + core + " does not exist; the host has cores 0.." + (hostCores - 1)
              + (many ? " (scenario.hosts." + hosts.get(w[0]).name() + ".cores = " : " (scenario.host.cores = ")
              + hostCores + ")");
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
}
