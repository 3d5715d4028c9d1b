package org.gpuemu.emulator.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.gpuemu.emulator.bench.BenchReport.Goal;

/**
 * The emulator's performance goals (docs/performance.md), each against what a bench run measured (a section that did
 * not run: not measured).
 */
final class Goals {
  static final long IDLE_P50_US = 100;
  static final long IDLE_P99_US = 150;
  static final long LOADED_P99_US = 500;
  static final double TICK_RATIO = 50;
  static final double DEFAULT_RATIO = 200;
  static final double PATH_RATE = 100_000;
  static final int PATH_VMS = 8;
  static final int SCALE_VMS = 250;
  static final long IDLE_VM_BYTES = 32 * 1024;
  static final double FAST_FORWARD_SCALE = 2;
  static final double OVERHEAD = 1.02;
  static final int HEADLINE_TIMERS = 1_000;

  private Goals() {}

  static List<Goal> of(TimerSection.Report timers, RequestPathSection.Report path, ScaleSection.Report scale,
      FastForwardSection.Report ff, OverheadSection.Report overhead) {
    List<Goal> goals = new ArrayList<>();
    TimerSection.Condition idle = condition(timers, "idle");
    TimerSection.Condition loaded = condition(timers, "loaded");
    if (idle == null) {
      goals.add(missing("timer lateness idle, p50", "<= " + IDLE_P50_US + " us"));
      goals.add(missing("timer lateness idle, p99", "<= " + IDLE_P99_US + " us"));
    } else {
      TimerSection.Row emu = idle.rows().get(2);
      goals.add(new Goal("timer lateness idle, p50", "<= " + IDLE_P50_US + " us",
          String.format(Locale.ROOT, "%,d us", emu.p50()),
          emu.p50() <= IDLE_P50_US, "emulator path, 1,000 concurrent timers of 0.1-10 ms"));
      goals.add(new Goal("timer lateness idle, p99", "<= " + IDLE_P99_US + " us",
          String.format(Locale.ROOT, "%,d us", emu.p99()),
          emu.p99() <= IDLE_P99_US, "emulator path, 1,000 concurrent timers of 0.1-10 ms; retired with the causal "
              + "order (below the machine's own wake-up floor), reported only"));
    }
    if (loaded == null) {
      goals.add(missing("timer lateness under an 8-VM scenario, p99", "<= " + LOADED_P99_US + " us"));
    } else {
      TimerSection.Row emu = loaded.rows().get(2);
      String own = timers.loadLateness() == null ? ""
          : String.format(Locale.ROOT, "; the load scenario's own timers: p99 %,d us", timers.loadLateness().p99());
      goals.add(new Goal("timer lateness under an 8-VM scenario, p99", "<= " + LOADED_P99_US + " us",
          String.format(Locale.ROOT, "%,d us", emu.p99()), emu.p99() <= LOADED_P99_US,
          "emulator path, 1,000 probe timers beside the load" + own));
    }
    if (idle == null) {
      goals.add(missing("better than Pekko's 1 ms tick", ">= " + (int) TICK_RATIO + "x"));
      goals.add(missing("better than Pekko's default scheduler", ">= " + (int) DEFAULT_RATIO + "x"));
    } else {
      TimerSection.Ratios r = idle.ratios();
      goals.add(new Goal("better than Pekko's 1 ms tick", ">= " + (int) TICK_RATIO + "x",
          "p50 " + BenchTable.times(r.tickP50()) + ", p99 " + BenchTable.times(r.tickP99()),
          r.tickP50() >= TICK_RATIO && r.tickP99() >= TICK_RATIO, "idle, 1,000 timers; both p50 and p99 must make it"));
      goals.add(new Goal("better than Pekko's default scheduler", ">= " + (int) DEFAULT_RATIO + "x",
          "p50 " + BenchTable.times(r.defaultP50()) + ", p99 " + BenchTable.times(r.defaultP99()),
          r.defaultP50() >= DEFAULT_RATIO && r.defaultP99() >= DEFAULT_RATIO,
          "idle, 1,000 timers; both p50 and p99 must make it"));
    }
    if (path == null || path.bestRate(PATH_VMS) == 0) {
      goals.add(missing("synchronous request path, 8 VMs", ">= 100,000 requests/wall s"));
    } else {
      double rate = path.bestRate(PATH_VMS);
      goals.add(new Goal("synchronous request path, 8 VMs", ">= 100,000 requests/wall s",
          String.format(Locale.ROOT, "%,.0f requests/wall s", rate), rate >= PATH_RATE,
          "best of the scales measured"));
    }
    if (scale == null) {
      goals.add(missing("VMs with 60 FPS game loops, faithful at scale 1", ">= 250"));
      goals.add(missing("heap per idle VM", "<= 32 KiB"));
    } else {
      String bound = scale.smallestUnfaithful() > 0
          ? String.format(Locale.ROOT, "%,d were not", scale.smallestUnfaithful())
          : "no unfaithful count found (search maximum or time budget reached)";
      goals.add(new Goal("VMs with 60 FPS game loops, faithful at scale 1", ">= 250",
          String.format(Locale.ROOT, "%,d VM%s", scale.largestFaithful(), scale.largestFaithful() == 1 ? "" : "s"),
          scale.largestFaithful() >= SCALE_VMS,
          String.format(Locale.ROOT, "by the run's own verdict, %s; by the old step criterion (steady p99 "
              + "<= %d us) %,d VMs", bound, scale.stepLimitUs(), scale.largestStepFaithful())));
      if (scale.heap() == null) {
        goals.add(missing("heap per idle VM", "<= 32 KiB"));
      } else {
        long bytes = scale.heap().bytesPerIdleVm();
        goals.add(new Goal("heap per idle VM", "<= 32 KiB", String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0),
            bytes <= IDLE_VM_BYTES, "VM + 2 vCPUs + vGPU + guest agent, from " + scale.heap().fewVms() + " and "
                + scale.heap().manyVms() + " idle VMs"));
      }
    }
    if (ff == null) {
      goals.add(missing("fast forward with the slow-motion outcome within 2 %", "scale >= 2"));
    } else {
      goals.add(new Goal("fast forward with the slow-motion outcome within 2 %", "scale >= 2",
          ff.highestSameScale() > 0 ? "scale " + RequestPathSection.fmt(ff.highestSameScale()) : "none",
          ff.highestSameScale() >= FAST_FORWARD_SCALE, ff.reference() + ", " + ff.emulatedSeconds()
              + " emulated s per run"));
    }
    double worst = overhead == null ? Double.NaN : overhead.worstAt(1.0);
    if (Double.isNaN(worst)) {
      goals.add(missing("emulation overhead at the declared scale (1)", "<= 1.02"));
    } else {
      goals.add(new Goal("emulation overhead at the declared scale (1)", "<= 1.02",
          String.format(Locale.ROOT, "%.4f", worst), worst <= OVERHEAD, "worst workload, one VM alone"));
    }
    return goals;
  }

  private static TimerSection.Condition condition(TimerSection.Report timers, String load) {
    if (timers == null) return null;
    return timers.conditions().stream()
        .filter(c -> c.timers() == HEADLINE_TIMERS && c.load().equals(load))
        .findFirst().orElse(null);
  }

  private static Goal missing(String goal, String target) {
    return new Goal(goal, target, "not measured", null, "");
  }
}
