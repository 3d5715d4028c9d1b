package org.gpuemu.emulator.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * The largest number of VMs running a 60 FPS game loop ({@code game-60fps}) in real time (scale 1) while the run
 * stays faithful, and the heap an idle VM costs.
 *
 * <p>Two criteria, both on the steady-state p99 timer lateness (after a warm-up): the issue's, under 10 % of the
 * frame's shortest step the guest waits for (the 2 ms CPU burst: 200 µs), and the frame's, under 10 % of the frame
 * (1,667 µs), both reported. The search runs on the run's own {@code faithful} verdict (causal order and lag, issue
 * 17; the whole run, warm-up included), doubling from one VM. A count that fails is run a second time, and fails
 * only if that run fails too. The frame's 10 µs draw batch is not a step the guest waits for (it is launched
 * asynchronously). Each VM gets its own
 * core and context switches cost nothing, so that neither the emulated CPUs nor the one emulated GPU limit the
 * count: only the emulator does.
 */
final class ScaleSection {
  static final String WORKLOAD = "game-60fps";
  static final double THRESHOLD = 0.1;

  private ScaleSection() {}

  /**
   * One tested VM count.
   *
   * @param steadyP99Us p99 timer lateness after the warm-up, emulated µs
   * @param stepFaithful the p99 is within a tenth of the frame's shortest step (the criterion)
   * @param frameFaithful the p99 is within a tenth of the frame (the search's criterion)
   * @param meanFps the VMs' mean FPS (the ideal is 60)
   * @param runFaithful the run's own verdict (summary.json's fidelity.faithful)
   */
  record Trial(int vms, long steadyP50Us, long steadyP99Us, long steadyTimers, boolean stepFaithful,
      boolean frameFaithful, double meanFps, boolean runFaithful, double wallSeconds, String invariants) {}

  /**
   * Heap per idle VM: the difference of the heap in use (after a full GC) between two runs of idle VMs (their start
   * delay is beyond the run's end), divided by the difference in VMs, so that fixed costs cancel.
   */
  record Heap(int fewVms, long fewBytes, int manyVms, long manyBytes, long bytesPerIdleVm) {
    static Heap of(int fewVms, long fewBytes, int manyVms, long manyBytes) {
      return new Heap(fewVms, fewBytes, manyVms, manyBytes, (manyBytes - fewBytes) / (manyVms - fewVms));
    }
  }

  /**
   * The section's figures.
   *
   * @param stepLimitUs the p99 limit: a tenth of the frame's shortest step
   * @param frameLimitUs the frame p99 limit: a tenth of the frame
   * @param largestStepFaithful the largest tested count faithful by the step criterion (0: none)
   * @param largestFaithful the largest count faithful by the run's own verdict (0: none)
   * @param smallestUnfaithful the smallest count unfaithful by the run's own verdict (-1: none found; the search's
   *     maximum passed or time ran out)
   * @param heap heap per idle VM
   */
  record Report(String workload, double idealFps, long stepLimitUs, long frameLimitUs, List<Trial> trials,
      int largestStepFaithful, int largestFaithful, int smallestUnfaithful, Heap heap) {}

  static Report run(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    Ideal ideal = Ideal.of(WorkloadCatalog.get(WORKLOAD));
    long stepLimitUs = Math.round(THRESHOLD * ideal.shortestStepNanos() / 1_000.0);
    long frameLimitUs = Math.round(THRESHOLD * 1e6 / ideal.perSecond());
    List<Trial> trials = new ArrayList<>();
    long deadline = System.nanoTime() + Math.round(plan.scaleBudgetWallSeconds() * 1e9);
    progress.accept(String.format(Locale.ROOT, "scale: searching VM counts %d..%d, steady p99 limits: step %d us,"
        + " frame %d us; budget %.0f s", plan.scaleStartVms(), plan.scaleMaxVms(), stepLimitUs, frameLimitUs,
        plan.scaleBudgetWallSeconds()));
    ScaleSearch.Result result = ScaleSearch.search(plan.scaleStartVms(), plan.scaleMaxVms(), plan.scaleRefineSteps(),
        vms -> confirmed(vms, "", n -> trial(plan, runs, scenario(plan, n), n, stepLimitUs, frameLimitUs), trials,
            progress),
        () -> System.nanoTime() < deadline);
    int largestStep = trials.stream().filter(Trial::stepFaithful).mapToInt(Trial::vms).max().orElse(0);
    Heap heap = heap(plan, runs, progress);
    return new Report(WORKLOAD, ideal.perSecond(), stepLimitUs, frameLimitUs, trials, largestStep,
        result.largestPass(), result.smallestFail(), heap);
  }

  /**
   * The search's test: {@code vms} VMs are faithful if a run says so. One hiccup (a GC pause, another process) can put
   * a short run over the limit: a count is unfaithful only when a second run confirms it. Every run goes into
   * {@code trials}; {@code label} names the layout in the progress line.
   */
  static boolean confirmed(int vms, String label, java.util.function.IntFunction<Trial> trial, List<Trial> trials,
      Consumer<String> progress) {
    for (int attempt = 0; attempt < 2; attempt++) {
      Trial t = trial.apply(vms);
      trials.add(t);
      progress.accept(String.format(Locale.ROOT,
          "scale%s: %,d VMs%s: steady p50 %,d p99 %,d us -> step %s, frame %s, verdict %s; mean %.1f fps%s", label,
          vms, attempt > 0 ? " (again)" : "", t.steadyP50Us(), t.steadyP99Us(),
          t.stepFaithful() ? "faithful" : "NOT faithful", t.frameFaithful() ? "faithful" : "NOT faithful",
          t.runFaithful() ? "faithful" : "NOT faithful",
          t.meanFps(), "ok".equals(t.invariants()) ? "" : ", invariants: " + t.invariants()));
      if (t.runFaithful()) return true;
    }
    return false;
  }

  /** The search's scenario: {@code vms} VMs of the workload on one host, a core each, free context switches. */
  private static ScenarioText scenario(BenchPlan plan, int vms) {
    return new ScenarioText("scale-" + vms + "vm",
        vms + " VMs of game-60fps in real time, a core each, free context switches: the scale search")
        .durationSeconds(plan.scaleSeconds())
        .set("host.cores", Integer.toString(vms))
        .set("gpu.context-switch", "0us")
        .vms("vm", vms, "workload = " + WORKLOAD + ", vcpus = 1");
  }

  /** One run of {@code text} ({@code vms} VMs), judged against the two p99 limits and by its own verdict. */
  static Trial trial(BenchPlan plan, Runs runs, ScenarioText text, int vms, long stepLimitUs, long frameLimitUs) {
    try {
      Runs.Measured m = runs.run(text, plan.scaleWarmUpSeconds(), null);
      if (m.summary().get("vms") instanceof java.util.Map<?, ?> ran && ran.size() != vms) {
        throw new IllegalStateException(ran.size() + " of the " + vms + " VMs ran (placement)");
      }
      long p99 = m.steady().p99();
      boolean steady = m.warmedUp() && m.steady().count() > 0;
      return new Trial(vms, m.steady().p50(), p99, m.steady().count(), steady && p99 <= stepLimitUs,
          steady && p99 <= frameLimitUs, m.meanOverVms("fps"), m.faithful(), m.wallSeconds(),
          m.broken().isEmpty() ? "ok" : String.join("; ", m.broken()));
    } catch (Exception e) {
      throw new IllegalStateException("scale run " + text.name() + " failed: " + e, e);
    }
  }

  private static Heap heap(BenchPlan plan, Runs runs, Consumer<String> progress) throws Exception {
    int few = plan.heapIdleVms().get(0);
    int many = plan.heapIdleVms().get(1);
    long fewBytes = idleHeap(runs, few, null);
    long manyBytes = idleHeap(runs, many, null);
    Heap heap = Heap.of(few, fewBytes, many, manyBytes);
    progress.accept(String.format(Locale.ROOT, "scale: heap %,d idle VMs %,d KiB, %,d idle VMs %,d KiB -> %,d bytes per"
        + " idle VM", few, fewBytes / 1024, many, manyBytes / 1024, heap.bytesPerIdleVm()));
    return heap;
  }

  /** Heap in use, after a full GC, one emulated second into a run of {@code vms} idle VMs. */
  static long idleHeap(Runs runs, int vms, Runnable afterMeasure) throws Exception {
    return heapOneSecondIn(runs, new ScenarioText("heap-" + vms + "-idle-vms",
        vms + " VMs that never start (start-delay beyond the end): the heap of idle VMs")
        .durationSeconds(2)
        .vms("vm", vms, "workload = " + WORKLOAD + ", start-delay = 1h"), afterMeasure);
  }

  /**
   * Heap in use, after a full GC, one emulated second into a run of {@code text} (at least two seconds long);
   * {@code afterMeasure} (or null) runs right after the measure, while the run's actors still live.
   */
  static long heapOneSecondIn(Runs runs, ScenarioText text, Runnable afterMeasure) throws Exception {
    AtomicLong used = new AtomicLong(-1);
    runs.run(text, 1.0, () -> {
      used.set(usedHeapAfterGc());
      if (afterMeasure != null) afterMeasure.run();
    });
    if (used.get() < 0) {
      throw new IllegalStateException("the run " + text.name() + " ended before its heap was measured");
    }
    return used.get();
  }

  static long usedHeapAfterGc() {
    // Twice: the first collection may leave garbage whose finalization frees more.
    System.gc();
    System.gc();
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
