package org.gpuemu.emulator.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.RunResult;

/**
 * summary.json's record of what was done to a run from outside (its {@code controls},
 * docs/guides/report-and-dashboard.md) and of its progress over wall time ({@code fidelity.progress}).
 */
final class ControlTally {
  private ControlTally() {}

  /** One entry per control and pause, in model time. */
  static List<SummaryDoc.Control> entries(List<Control.Record> records) {
    List<SummaryDoc.Control> out = new ArrayList<>();
    for (Control.Record r : records) {
      if (r.isPause()) {
        out.add(new SummaryDoc.Control("pause", null, null, null, null, Summary.round(r.atNanos() / 1e9, 6), null,
            null, Summary.round(r.pausedWallNanos() / 1e9, 3)));
        continue;
      }
      Control c = r.control();
      String kind = c instanceof Control.Fault f ? f.kind().label() : null;
      Double heal = c instanceof Control.Fault f ? Double.valueOf(f.healAfterNanos() / 1e9) : null;
      Number value = null; // (a conditional would unbox an Integer and a Double to one double)
      if (c instanceof Control.Weight w) value = w.weight();
      if (c instanceof Control.Share s) value = s.share();
      out.add(new SummaryDoc.Control(c.what(), kind, c.target(), value, heal, r.atNanos() / 1e9, r.applied(),
          r.note(), null));
    }
    return out;
  }

  /** The progress samples as rows {@code [wall_s, t_s, real_time_factor, lateness_p99_us, paused]}. */
  static List<List<Number>> progress(List<RunResult.Progress> samples) {
    List<List<Number>> rows = new ArrayList<>();
    for (RunResult.Progress p : samples) {
      rows.add(Arrays.asList(Summary.round(p.wallS(), 3), Summary.round(p.emulatedS(), 4),
          Double.isFinite(p.realTimeFactor()) ? Summary.round(p.realTimeFactor(), 4) : null,
          p.latenessP99Us() < 0 ? null : p.latenessP99Us(), p.paused() ? 1 : 0));
    }
    return rows;
  }
}
