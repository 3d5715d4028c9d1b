package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.function.Consumer;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * Scale against hosts and threads ({@code --only host-scale}): the scale section's search (the largest count of
 * {@code game-60fps} VMs faithful at scale 1 by the run's own verdict, a count confirmed unfaithful by a second run)
 * with the VMs spread over several hosts (round robin, a core per VM, one GPU per host, free context switches) and
 * the hosts run apart on {@code fidelity.host-threads} threads ({@link #LAYOUTS}). The one-host search of the scale
 * section runs the whole model in one causal order on one thread; here a host's events wait only for its own and the
 * guardian's, and the hosts share the machine's cores. Spreading the VMs also gives each host its own GPU, so the
 * emulated machine differs from the one-host search's (one GPU for every VM's 10 µs draw batch a frame: 60 % busy at
 * 1,000 VMs); either way only the emulator limits the count. Placement admits a VM by its memory cap (1 GiB by
 * default: four VMs on a 4 GiB GPU), which the workload never allocates: each VM caps itself at 1 MiB so that every
 * VM is placed (a trial in which fewer ran fails). The search starts at {@value #START_VMS} VMs (the
 * one-host search's figure on this project's machine was 512) and doubles, then bisects.
 */
final class HostScaleSection {
  /** Hosts and host threads of each search, in the order run: one host apart, then two and four hosts on two threads. */
  static final List<int[]> LAYOUTS = List.of(new int[] {1, 1}, new int[] {2, 2}, new int[] {4, 2});
  static final int START_VMS = 256;

  private HostScaleSection() {}

  /**
   * One layout's search.
   *
   * @param hosts hosts the VMs are spread over
   * @param hostThreads {@code fidelity.host-threads}
   * @param trials every run, in the order run
   * @param largestFaithful the largest count faithful by the run's verdict (0: none)
   * @param smallestUnfaithful the smallest count confirmed unfaithful (-1: none found within the maximum or budget)
   */
  record Layout(int hosts, int hostThreads, List<ScaleSection.Trial> trials, int largestFaithful,
      int smallestUnfaithful) {}

  /**
   * The section's figures.
   *
   * @param emulatedSeconds emulated (= wall) length of every run
   * @param layouts one per layout, in the order run
   */
  record Report(String workload, double emulatedSeconds, List<Layout> layouts) {
    /** The layout with the most faithful VMs (the first of equals); null when none ran. */
    Layout best() {
      Layout best = null;
      for (Layout l : layouts) if (best == null || l.largestFaithful() > best.largestFaithful()) best = l;
      return best;
    }
  }

  static Report run(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    Ideal ideal = Ideal.of(WorkloadCatalog.get(ScaleSection.WORKLOAD));
    long stepLimitUs = Math.round(ScaleSection.THRESHOLD * ideal.shortestStepNanos() / 1_000.0);
    long frameLimitUs = Math.round(ScaleSection.THRESHOLD * 1e6 / ideal.perSecond());
    List<Layout> layouts = new ArrayList<>();
    for (int[] layout : LAYOUTS) {
      int hosts = layout[0];
      int threads = layout[1];
      String label = String.format(Locale.ROOT, " (%d host%s, %d thread%s)", hosts, hosts == 1 ? "" : "s", threads,
          threads == 1 ? "" : "s");
      progress.accept(String.format(Locale.ROOT, "host-scale%s: searching VM counts %d..%d; budget %.0f s", label,
          START_VMS, plan.scaleMaxVms(), plan.scaleBudgetWallSeconds()));
      List<ScaleSection.Trial> trials = new ArrayList<>();
      long deadline = System.nanoTime() + Math.round(plan.scaleBudgetWallSeconds() * 1e9);
      ScaleSearch.Result result = ScaleSearch.search(Math.min(START_VMS, plan.scaleMaxVms()), plan.scaleMaxVms(),
          plan.scaleRefineSteps(),
          vms -> ScaleSection.confirmed(vms, label, n -> ScaleSection.trial(plan, runs,
              scenario(hosts, threads, n, plan.scaleSeconds()), n, stepLimitUs, frameLimitUs), trials, progress),
          () -> System.nanoTime() < deadline);
      layouts.add(new Layout(hosts, threads, List.copyOf(trials), result.largestPass(), result.smallestFail()));
    }
    return new Report(ScaleSection.WORKLOAD, plan.scaleSeconds(), layouts);
  }

  /** {@code vms} VMs of the workload over {@code hosts} hosts (round robin, a core per VM), hosts run apart. */
  static ScenarioText scenario(int hosts, int threads, int vms, double seconds) {
    ScenarioText text = new ScenarioText("host-scale-" + hosts + "h" + threads + "t-" + vms + "vm", vms
        + " VMs of game-60fps in real time over " + hosts + " host(s) on " + threads
        + " host thread(s), a core each, free context switches: the scale search against hosts and threads")
        .durationSeconds(seconds)
        .set("gpu.context-switch", "0us")
        .set("fidelity.host-threads", Integer.toString(threads));
    StringJoiner hostBlock = new StringJoiner(", ", "{ ", " }");
    for (int h = 0; h < hosts; h++) {
      hostBlock.add("h" + h + " { cores = " + ((vms + hosts - 1 - h) / hosts) + " }");
    }
    text.set("hosts", hostBlock.toString());
    for (int i = 0; i < vms; i++) {
      text.vm("vm" + i, "workload = " + ScaleSection.WORKLOAD + ", vcpus = 1, memory-cap = 1MiB, host = h" + (i % hosts));
    }
    return text;
  }
}
