package org.gpuemu.emulator.run;

import java.util.Locale;
import org.gpuemu.emulator.clock.Causality;
import org.gpuemu.emulator.clock.Frontier;

/**
 * Watches the conservative order's bound from the runner's loop: if it stays on one level for {@link #LIMIT_NANOS}
 * of wall time while the clock is past that level by as much, no event can be handled any more (an event was
 * counted and then lost: nothing in the run can move the bound). The run is then ended with {@link Runner.Stuck}
 * naming the level, instead of waiting forever. A model with nothing to do until a later timer is not stuck: its
 * bound is that timer's level, which the clock has not reached.
 */
final class StallWatch {
  static final long LIMIT_NANOS = 60_000_000_000L;
  private final Causality causality;
  private final Runner.Session session;
  private Frontier.Level seen;
  private long since = System.nanoTime();

  StallWatch(Causality causality, Runner.Session session) {
    this.causality = causality;
    this.session = session;
  }

  /** A paused run does not move by design: its wall time does not count (the watch starts afresh on resume). */
  void check() {
    Frontier f = causality.frontier();
    if (f == null) return;
    Frontier.Level bound = causality.present();
    long now = System.nanoTime();
    if (session.paused()) {
      seen = null;
      return;
    }
    if (!bound.equals(seen)) {
      seen = bound;
      since = now;
      return;
    }
    long behind = causality.clock().toWallNanos(causality.clock().nowNanos() - bound.stamp());
    if (now - since > LIMIT_NANOS && behind > LIMIT_NANOS && f.cap() == Frontier.Level.TOP) {
      throw new Runner.Stuck(String.format(Locale.ROOT, "the run's causal order has not moved for %.0f s (wall):"
          + " %s; an event was counted and never handled, please report it with the scenario and seed",
          (now - since) / 1e9, f));
    }
  }
}
