package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.util.Locale;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.metrics.MetricsHub;

/**
 * The progress line: emulated time, live fidelity (real-time factor, current p99 timer lateness), and each VM's
 * FPS and GPU share over the last metrics period.
 */
final class ProgressLine implements AutoCloseable {
  private final ProgressBar bar;
  private final PrintWriter plain;
  private final long totalMillis;
  private long nextPlain;

  /** Whether the line shows how long the rest should take (a soak's), and the wall clock it goes by. */
  private final boolean eta;
  private final long wallStart = System.nanoTime();

  ProgressLine(Settings.Scenario s, PrintWriter out) {
    this(s, out, false);
  }

  ProgressLine(Settings.Scenario s, PrintWriter out, boolean eta) {
    this.eta = eta;
    totalMillis = Math.max(1, s.durationNanos() / 1_000_000);
    if (System.console() != null) {
      ProgressBarBuilder b = new ProgressBarBuilder().setTaskName(s.name()).setInitialMax(totalMillis)
          .setUnit(" s", 1000).setStyle(ProgressBarStyle.ASCII).setUpdateIntervalMillis(250);
      bar = (eta ? b : b.hideEta()).build();
      plain = null;
    } else {
      bar = null;
      plain = out;
    }
  }

  void update(MetricsHub.LiveView view) {
    long ms = Math.min(totalMillis, view.emulatedNanos() / 1_000_000);
    StringBuilder extra = new StringBuilder(fidelity(view)).append("  ");
    for (int i = 0; i < view.names().size(); i++) {
      extra.append(String.format("%s %.0ffps %.0f%%  ", view.names().get(i), view.fps()[i], 100 * view.gpuShare()[i]));
    }
    if (bar != null) {
      bar.stepTo(ms);
      bar.setExtraMessage(extra.toString().trim());
    } else if (ms >= nextPlain) {
      String left = "";
      if (eta && ms > 0) { // the rest at the pace so far, in wall time
        double wall = (System.nanoTime() - wallStart) / 1e9;
        left = String.format(Locale.ROOT, "  about %.0f wall s left", wall * (totalMillis - ms) / ms);
      }
      plain.printf("  %5.1f / %.1f s%s  %s%n", ms / 1e3, totalMillis / 1e3, left, extra.toString().trim());
      plain.flush();
      nextPlain = ms + Math.max(1000, totalMillis / 10);
    }
  }

  /**
   * The live fidelity part of the line: real-time factor (emulated seconds per wall second, as far as the timers
   * got), the p99 timer lateness of the last quarter second ("-" where not known yet) and the verdict so far.
   */
  static String fidelity(MetricsHub.LiveView view) {
    String rtf = Double.isNaN(view.realTimeFactor()) ? "-"
        : String.format(Locale.ROOT, "%.2fx", view.realTimeFactor());
    String p99 = view.latenessP99Us() < 0 ? "-" : view.latenessP99Us() + "us";
    return "rtf " + rtf + " p99 " + p99 + (view.verdict() == null ? "" : " " + view.verdict());
  }

  @Override public void close() {
    if (bar != null) bar.close();
  }
}
