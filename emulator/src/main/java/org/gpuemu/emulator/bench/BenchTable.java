package org.gpuemu.emulator.bench;

import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The readable table of a {@link BenchReport}, section by section; what the bench prints at its end. */
final class BenchTable {
  private BenchTable() {}

  static String render(BenchReport r) {
    StringBuilder b = new StringBuilder();
    BenchReport.Machine m = r.machine();
    line(b, "gpuemu bench (%s): %d cores, Java %s, GC %s, max heap %,d MiB; %.0f s", r.plan(), m.cores(), m.java(),
        String.join("+", m.gc()), m.maxHeapMb(), r.wallSeconds());
    if (r.timerLateness() != null) timers(b, r.timerLateness());
    if (r.requestPath() != null) path(b, r.requestPath());
    if (r.scale() != null) scale(b, r.scale());
    if (r.fastForward() != null) fastForward(b, r.fastForward());
    if (r.overhead() != null) overhead(b, r.overhead());
    if (r.hosts() != null) hosts(b, r.hosts());
    if (r.hostScale() != null) hostScale(b, r.hostScale());
    if (r.fidelity() != null) fidelity(b, r.fidelity());
    for (Map.Entry<String, String> e : r.errors().entrySet()) {
      line(b, "");
      line(b, "%s: NOT MEASURED: %s", e.getKey(), e.getValue());
    }
    line(b, "");
    line(b, "Goals (docs/performance.md)");
    line(b, "%-52s %-27s %-28s %s", "goal", "target", "measured", "met");
    for (BenchReport.Goal g : r.goals()) {
      line(b, "%-52s %-27s %-28s %s", g.goal(), g.target(), g.measured(),
          g.met() == null ? "-" : g.met() ? "yes" : "NO");
    }
    return b.toString();
  }

  private static void timers(StringBuilder b, TimerSection.Report t) {
    line(b, "");
    line(b, "Timer lateness, due to actor receipt, us (%d-%d us timers; median of %d trial(s))", t.minDelayMicros(),
        t.maxDelayMicros(), t.trials());
    line(b, "%-8s %-7s %-28s %10s %10s %10s %10s", "timers", "load", "scheduler", "p50", "p99", "p99.9", "max");
    for (TimerSection.Condition c : t.conditions()) {
      for (TimerSection.Row row : c.rows()) {
        line(b, "%-8s %-7s %-28s %,10d %,10d %,10d %,10d", String.format(Locale.ROOT, "%,d", c.timers()), c.load(),
            row.scheduler(), row.p50(), row.p99(), row.p999(), row.max());
      }
    }
    for (TimerSection.Floor f : t.floors()) {
      for (TimerSection.Row row : List.of(f.park(), f.wakeUp())) {
        line(b, "%-8s %-7s %-28s %,10d %,10d %,10d %,10d", "-", f.load(), row.scheduler(), row.p50(), row.p99(),
            row.p999(), row.max());
      }
    }
    for (TimerSection.Condition c : t.conditions()) {
      TimerSection.Ratios x = c.ratios();
      line(b, "  %,d %s: emulator path vs Pekko default p50 %s p99 %s; vs 1 ms tick p50 %s p99 %s", c.timers(),
          c.load(),
          times(x.defaultP50()), times(x.defaultP99()), times(x.tickP50()), times(x.tickP99()));
    }
    if (t.loadLateness() != null) {
      line(b, "  load %s, its own timers meanwhile: p50 %,d p99 %,d p99.9 %,d max %,d us", t.loadScenario(),
          t.loadLateness().p50(), t.loadLateness().p99(), t.loadLateness().p999(), t.loadLateness().max());
    }
    if (t.loadError() != null) line(b, "  load: %s", t.loadError());
  }

  private static void path(StringBuilder b, RequestPathSection.Report p) {
    line(b, "");
    line(b, "Request path: %s, synchronous requests per wall second", p.workload());
    line(b, "%5s %6s %12s %16s %7s %10s %10s %9s %9s %10s  %s", "VMs", "scale", "requests", "requests/wall s",
        "GPU %", "p50 us", "p99 us", "events/rq", "CPU us/rq", "bytes/rq", "invariants");
    for (RequestPathSection.Row r : p.rows()) {
      line(b, "%5d %6s %,12d %,16.0f %7.1f %,10d %,10d %9.1f %9.1f %,10.0f  %s", r.vms(),
          RequestPathSection.fmt(r.timeScale()), r.requests(), r.requestsPerWallSecond(), 100 * r.gpuUtilization(),
          r.latenessP50Us(), r.latenessP99Us(), r.eventsPerRequest(), r.cpuMicrosPerRequest(),
          r.allocatedBytesPerRequest(), r.invariants());
    }
  }

  private static void hosts(StringBuilder b, HostsSection.Report h) {
    line(b, "");
    line(b, "Hosts in parallel: %s (%d hosts, %d VMs of sync-loop, scale %s, %.1f emulated s per run)", h.scenario(),
        h.hosts(), h.vms(), RequestPathSection.fmt(h.timeScale()), h.emulatedSeconds());
    line(b, "%12s %16s %27s %12s %13s %10s", "host threads", "events/wall s", "range", "events", "same figures",
        "late");
    for (HostsSection.Row r : h.rows()) {
      double lo = r.eventsPerWallSecond().stream().mapToDouble(Double::doubleValue).min().orElse(0);
      double hi = r.eventsPerWallSecond().stream().mapToDouble(Double::doubleValue).max().orElse(0);
      line(b, "%12s %,16.0f %27s %,12d %13s %,10d", r.hostThreads() == 0 ? "0 (one order)" : r.hostThreads(),
          r.median(), String.format(Locale.ROOT, "%,.0f-%,.0f", lo, hi), r.events(), r.sameFigures() ? "yes" : "NO",
          r.violations());
    }
  }

  private static void hostScale(StringBuilder b, HostScaleSection.Report h) {
    line(b, "");
    line(b, "Scale against hosts and threads: %s at scale 1, %.1f s per run, faithful by the run's own verdict",
        h.workload(), h.emulatedSeconds());
    line(b, "%6s %13s %17s %19s  %s", "hosts", "host threads", "largest faithful", "smallest unfaithful",
        "tested (VMs: verdict, steady p99 us)");
    for (HostScaleSection.Layout l : h.layouts()) {
      StringBuilder tested = new StringBuilder();
      for (ScaleSection.Trial t : l.trials()) {
        tested.append(String.format(Locale.ROOT, "%,d: %s %,d; ", t.vms(), t.runFaithful() ? "yes" : "no",
            t.steadyP99Us()));
      }
      line(b, "%6d %13d %,17d %19s  %s", l.hosts(), l.hostThreads(), l.largestFaithful(),
          l.smallestUnfaithful() > 0 ? String.format(Locale.ROOT, "%,d", l.smallestUnfaithful()) : "-", tested);
    }
  }

  private static void scale(StringBuilder b, ScaleSection.Report s) {
    line(b, "");
    line(b, "Scale: %s at scale 1 (ideal %.1f fps); steady p99 limits: step %,d us, frame %,d us", s.workload(),
        s.idealFps(), s.stepLimitUs(), s.frameLimitUs());
    line(b, "%7s %10s %10s %9s %6s %6s %8s %9s %8s", "VMs", "p50 us", "p99 us", "timers", "step", "frame", "verdict",
        "mean fps", "wall s");
    for (ScaleSection.Trial t : s.trials()) {
      line(b, "%,7d %,10d %,10d %,9d %6s %6s %8s %9.1f %8.1f", t.vms(), t.steadyP50Us(), t.steadyP99Us(),
          t.steadyTimers(), t.stepFaithful() ? "yes" : "no", t.frameFaithful() ? "yes" : "no",
          t.runFaithful() ? "yes" : "no", t.meanFps(), t.wallSeconds());
    }
    line(b, "  largest faithful: %,d VMs by the run's verdict%s; %,d by the step criterion", s.largestFaithful(),
        s.smallestUnfaithful() > 0 ? String.format(Locale.ROOT, " (%,d were not)", s.smallestUnfaithful()) : "",
        s.largestStepFaithful());
    if (s.heap() != null) {
      line(b, "  heap per idle VM: %,d bytes (%,d idle VMs: %,d KiB; %,d: %,d KiB)", s.heap().bytesPerIdleVm(),
          s.heap().fewVms(), s.heap().fewBytes() / 1024, s.heap().manyVms(), s.heap().manyBytes() / 1024);
    }
  }

  private static void fastForward(StringBuilder b, FastForwardSection.Report f) {
    line(b, "");
    line(b, "Fast forward: %s, %.1f emulated s per run, against scale %s (tolerance %.0f %%)", f.reference(),
        f.emulatedSeconds(), RequestPathSection.fmt(FastForwardSection.REFERENCE_SCALE), 100 * f.tolerance());
    line(b, "%6s %8s %14s %10s %6s %9s  %s", "scale", "wall s", "share dev %", "mmr dev %", "same", "p99 us",
        "shares");
    row(b, f.slowMotion());
    for (FastForwardSection.Trial t : f.trials()) row(b, t);
    if (f.highestSameScale() > 0) {
      line(b, "  highest same-outcome scale: %s: the file's %.0f emulated s take %.1f wall s instead of %.0f at its"
          + " own scale %s (saves %.1f s) and %.0f at 0.1 (saves %.1f s)", RequestPathSection.fmt(f.highestSameScale()),
          f.fileSeconds(), f.fileWallAtHighest(), f.fileSeconds() / f.fileScale(),
          RequestPathSection.fmt(f.fileScale()), f.savedVsFileScale(),
          f.fileSeconds() / FastForwardSection.REFERENCE_SCALE, f.savedVsSlowMotion());
    } else {
      line(b, "  no scale tried gave the slow-motion outcome");
    }
  }

  private static void row(StringBuilder b, FastForwardSection.Trial t) {
    StringBuilder shares = new StringBuilder();
    for (Map.Entry<String, Double> e : t.shares().entrySet()) {
      shares.append(String.format(Locale.ROOT, "%s %.3f ", e.getKey(), e.getValue()));
    }
    shares.append(String.format(Locale.ROOT, "mmr %.3f", t.mmr()));
    line(b, "%6s %8.1f %14.2f %10.2f %6s %,9d  %s", RequestPathSection.fmt(t.timeScale()), t.wallSeconds(),
        100 * t.shareDeviation(), 100 * t.mmrDeviation(), t.same() ? "yes" : "NO", t.latenessP99Us(), shares);
  }

  private static void overhead(StringBuilder b, OverheadSection.Report o) {
    line(b, "");
    line(b, "Emulation overhead: one VM alone against its analytic ideal (overhead = ideal / measured)");
    line(b, "%-12s %6s %11s %-10s %11s %11s %9s %9s", "workload", "scale", "emulated s", "unit", "ideal", "measured",
        "overhead", "p99 us");
    for (OverheadSection.Row r : o.rows()) {
      line(b, "%-12s %6s %11.1f %-10s %11.2f %11.2f %9.4f %,9d", r.workload(), RequestPathSection.fmt(r.timeScale()),
          r.emulatedSeconds(), r.unit(), r.ideal(), r.measured(), r.overhead(), r.latenessP99Us());
    }
  }

  private static void fidelity(StringBuilder b, FidelitySection.Report f) {
    line(b, "");
    line(b, "Fidelity: each scenario under %s%s at its own scale and %sx slower (same seed and length); within:"
        + " relative <= %.0f %% (absolute <= %s below %s)", f.folder(), f.filter() == null ? ""
        : " matching '" + f.filter() + "'", RequestPathSection.fmt(f.slower()), 100 * f.relativeTolerance(),
        f.absoluteTolerance(), f.absoluteBelow());
    String format = "%-32s %6s %6s %-12s %13s %6s %-12s %13s %-6s %-17s %s";
    line(b, format, "scenario", "emul s", "scale", "verdict", "viol./p99 us", "ref", "ref verdict", "viol./p99 us",
        "within", "verdict right", "largest difference");
    Path folder = Path.of(f.folder());
    for (FidelitySection.Row r : f.rows()) {
      String name = Path.of(r.scenario()).startsWith(folder)
          ? folder.relativize(Path.of(r.scenario())).toString() : r.scenario();
      if (r.error() != null) {
        line(b, "%-32s ERROR: %s", name, r.error());
        continue;
      }
      line(b, format, name, String.format(Locale.ROOT, "%.2f", r.emulatedSeconds()),
          RequestPathSection.fmt(r.run().timeScale()), r.run().faithful() ? "faithful" : "NOT faithful",
          violationsAndP99(r.run()), RequestPathSection.fmt(r.reference().timeScale()),
          r.reference().faithful() ? "faithful" : "NOT faithful", violationsAndP99(r.reference()),
          r.comparison().within() ? "yes" : "NO", switch (r.call()) {
            case CONFIRMED, CAUGHT -> "yes";
            case MISSED -> "NO (missed)";
            case FALSE_ALARM -> "yes (false alarm)";
          }, FidelitySection.largest(r.comparison()));
    }
    for (FidelitySection.Row r : f.rows()) {
      if (r.error() != null) continue;
      for (FidelitySection.Side side : List.of(r.run(), r.reference())) {
        if (!side.faithful()) {
          line(b, "  %s at scale %s: NOT faithful: %s", r.scenario(), RequestPathSection.fmt(side.timeScale()),
              side.reason());
        }
      }
    }
    FidelityCheck.Totals t = f.totals();
    line(b, "  runs %d, faithful %d, verdict right %d, missed %d, false alarms %d; within %d, references faithful %d;"
        + " errors %d", t.runs(), t.faithful(), t.verdictRight(), t.missed(), t.falseAlarms(), t.within(),
        t.referenceFaithful(), t.errors());
  }

  private static String violationsAndP99(FidelitySection.Side s) {
    return String.format(Locale.ROOT, "%,d/%,d", s.violations(), s.latenessP99Us());
  }

  /** A ratio as "2,029x", "8.0x" or "0.83x": three significant figures where they matter. */
  static String times(double ratio) {
    if (ratio >= 100) return String.format(Locale.ROOT, "%,.0fx", ratio);
    if (ratio >= 10) return String.format(Locale.ROOT, "%.0fx", ratio);
    if (ratio >= 1) return String.format(Locale.ROOT, "%.1fx", ratio);
    return String.format(Locale.ROOT, "%.2fx", ratio);
  }

  private static void line(StringBuilder b, String format, Object... args) {
    b.append(String.format(Locale.ROOT, format, args)).append(System.lineSeparator());
  }
}
