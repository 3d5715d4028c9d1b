package org.gpuemu.emulator.clock;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The run's safe time: the earliest {@link Level} of any event not yet handled — a message enqueued or held in an
 * inbox, an armed timer, an event being handled. Conservative synchronisation with a global lower bound on time
 * stamps (Chandy and Misra's conservative parallel discrete-event simulation, computed here from shared memory
 * rather than null messages; R. M. Fujimoto, "Parallel and Distributed Simulation Systems", Wiley 2000, ch. 3):
 * an inbox hands an event to its actor only when nothing earlier is outstanding anywhere, so no event can arrive
 * after a later one was handled, however late a thread runs.
 *
 * <p>Why the lower bound is safe. A message is stamped with the model time of the event that sent it and one
 * generation more ({@link Level#next}); a timer is armed for a later due time, or, for one due at once, one
 * generation after the event that armed it. So every event an outstanding event can still cause has a level
 * strictly greater than its cause's. When the earliest outstanding level is {@code L}, every event at {@code L} has
 * been created, and all of them can be handled in parallel: they are at different actors or, at one actor, ordered
 * by their stable tie keys.
 *
 * <p>Counting. {@link #add} when an event comes into being (a stamped message enqueued, a timer armed) and
 * {@link #done} when it has been handled (or dropped: a cancelled timer, a message to a stopped actor). An event's
 * consequences are added while it is handled, before it is done, so the bound never passes them. Inboxes whose next
 * event is later than the bound {@link #releasable park} and are woken when the bound reaches it.
 *
 * <p>Thread-safe: one lock, held for a few array operations; an event's check against the bound ({@code mayGo})
 * reads it without the lock. The counts are kept per model time ({@link OutstandingTimes}: a hash table and a heap
 * of primitive times) and, within one, per generation (an array): most events are added and done at the bound's own
 * model time, which is found without either.
 */
public final class Frontier {

  /**
   * Where an event sits in the run's order: its model time, and among events of the same model time how many
   * messages it is after a timer (a message always comes after the event that sent it).
   */
  public record Level(long stamp, int generation) implements Comparable<Level> {
    /** Past every level: nothing outstanding. */
    public static final Level TOP = new Level(Long.MAX_VALUE, Integer.MAX_VALUE);

    /** The level of a message sent, or a timer due at once, while an event at this level is handled. */
    public Level next() {
      return new Level(stamp, generation + 1);
    }

    @Override
    public int compareTo(Level o) {
      return compare(stamp, generation, o.stamp, o.generation);
    }
  }

  /** What is woken when the bound reaches the level it waits for, with the token it registered with. */
  public interface Waiter {
    void wake(long token);
  }

  /** The model times with outstanding events, each with its counts by generation. */
  private final OutstandingTimes outstanding = new OutstandingTimes();
  /** The entry of the bound's model time (null: nothing outstanding). */
  private OutstandingTimes.Stamp earliest;
  private final Waiters waiting = new Waiters();
  /**
   * The bound, written under the lock and read without it as a sequence lock: the version is odd while the two fields
   * change, and a reader that saw it odd or changed reads again. Two fields, not a {@link Level}: the bound moves with
   * almost every event, and a {@code Level} for each move was an allocation per event.
   */
  private volatile int boundVersion;
  private volatile long boundStamp = Long.MAX_VALUE;
  private volatile int boundGeneration = Integer.MAX_VALUE;
  /**
   * How many times the bound went down (an event added below it): a partitioned run's event reads several frontiers
   * one after the other, and an event moving from one not yet read to one already read lowers the latter
   * ({@link #allMayGo}).
   */
  private volatile int lowered;
  /** The level past which nothing is handed over any more (the run has ended): TOP while it goes. */
  private volatile Level cap = Level.TOP;
  /** The level past which nothing is handed over while the run is paused ({@link #pause}): TOP while it goes. */
  private volatile Level pausedAt = Level.TOP;

  static int compare(long stamp, int generation, long otherStamp, int otherGeneration) {
    int c = Long.compare(stamp, otherStamp);
    return c != 0 ? c : Integer.compare(generation, otherGeneration);
  }

  /** The earliest level of an event not yet handled ({@link Level#TOP}: none). */
  public Level bound() {
    long stamp;
    int generation;
    synchronized (this) {
      stamp = boundStamp;
      generation = boundGeneration;
    }
    return stamp == Long.MAX_VALUE && generation == Integer.MAX_VALUE ? Level.TOP : new Level(stamp, generation);
  }

  /** Under the lock: the bound moves to ({@code stamp}, {@code generation}). */
  private void setBound(long stamp, int generation) {
    boundVersion++;
    boundStamp = stamp;
    boundGeneration = generation;
    boundVersion++;
  }

  /** Whether ({@code stamp}, {@code generation}) is at or before the bound, read as one (the sequence lock). */
  private boolean atOrBeforeBound(long stamp, int generation) {
    for (int attempt = 0; attempt < 4; attempt++) {
      int version = boundVersion;
      long s = boundStamp;
      int g = boundGeneration;
      if ((version & 1) == 0 && version == boundVersion) return compare(stamp, generation, s, g) <= 0;
    }
    synchronized (this) { // the writer was descheduled while it wrote: wait for it
      return compare(stamp, generation, boundStamp, boundGeneration) <= 0;
    }
  }

  /** An event at ({@code stamp}, {@code generation}) came into being. */
  public void add(long stamp, int generation) {
    synchronized (this) {
      OutstandingTimes.Stamp s = earliest != null && earliest.stamp == stamp ? earliest : null;
      if (s == null) {
        s = outstanding.get(stamp);
        if (s == null) s = outstanding.create(stamp);
        if (earliest == null || stamp < earliest.stamp) earliest = s;
      }
      s.add(generation);
      if (s == earliest && compare(stamp, generation, boundStamp, boundGeneration) < 0) {
        lowered++;
        setBound(stamp, generation);
      }
    }
  }

  /** An event at ({@code stamp}, {@code generation}) has been handled, or dropped; wakes whoever waited for it. */
  public void done(long stamp, int generation) {
    // the waits due, taken out under the lock and woken after it: the first in locals, any more in arrays
    Waiter first;
    long firstToken;
    Waiter[] more = null;
    long[] moreTokens = null;
    int n = 0;
    synchronized (this) {
      OutstandingTimes.Stamp s = earliest != null && earliest.stamp == stamp ? earliest : outstanding.get(stamp);
      if (s == null) throw new IllegalStateException("no outstanding event at (" + stamp + ", " + generation + ")");
      if (!s.done(generation) || s != earliest) {
        if (s.total == 0) outstanding.remove(s);
        return;
      }
      if (s.total == 0) {
        outstanding.remove(s);
        earliest = outstanding.first();
      }
      long nextStamp = earliest == null ? Long.MAX_VALUE : earliest.stamp;
      int nextGeneration = earliest == null ? Integer.MAX_VALUE : earliest.first;
      setBound(nextStamp, nextGeneration);
      // a waiter waits for its own event, which is outstanding: past a cap, every waiter is past it too
      if (!waiting.firstAtOrBefore(nextStamp, nextGeneration) || after(nextStamp, nextGeneration, cap)
          || after(nextStamp, nextGeneration, pausedAt)) {
        return;
      }
      first = waiting.firstWaiter();
      firstToken = waiting.firstToken();
      waiting.removeFirst();
      while (waiting.firstAtOrBefore(nextStamp, nextGeneration)) {
        if (more == null || n == more.length) {
          more = more == null ? new Waiter[4] : Arrays.copyOf(more, 2 * n);
          moreTokens = moreTokens == null ? new long[4] : Arrays.copyOf(moreTokens, 2 * n);
        }
        more[n] = waiting.firstWaiter();
        moreTokens[n++] = waiting.firstToken();
        waiting.removeFirst();
      }
    }
    first.wake(firstToken);
    for (int i = 0; i < n; i++) more[i].wake(moreTokens[i]);
  }

  /** As {@link #add(long, int)}. */
  public void add(Level level) {
    add(level.stamp(), level.generation());
  }

  /** As {@link #done(long, int)}. */
  public void done(Level level) {
    done(level.stamp(), level.generation());
  }

  /**
   * Whether an event at ({@code stamp}, {@code generation}) may be handled now: nothing earlier is outstanding and
   * the run has not ended before it. If not, {@code waiter} is woken once the bound reaches it (never, past the cap);
   * a waiter asks once per level it waits for.
   */
  public boolean releasable(long stamp, int generation, Waiter waiter, long token) {
    if (mayGo(stamp, generation)) return true;
    synchronized (this) {
      if (mayGo(stamp, generation)) return true;
      waiting.add(stamp, generation, waiter, token);
      return false;
    }
  }

  /** How many times the bounds of {@code gates} went down so far (a sum: each count only grows). */
  static long lowered(Frontier[] gates) {
    long n = 0;
    for (Frontier f : gates) n += f.lowered;
    return n;
  }

  /**
   * Whether an event at ({@code stamp}, {@code generation}) may be handled now by every frontier of {@code gates}, read
   * as at one instant: an event can move from a frontier read later to one read earlier (its cause is done after its
   * consequence is added, on the sender's thread), which would hide it from both reads; it then lowers the earlier
   * one's bound, and the reads are repeated.
   */
  static boolean allMayGo(Frontier[] gates, long stamp, int generation) {
    while (true) {
      long before = lowered(gates);
      for (Frontier f : gates) if (!f.mayGo(stamp, generation)) return false;
      if (lowered(gates) == before) return true;
    }
  }

  /** Whether an event at ({@code stamp}, {@code generation}) may be handled now (no wait is registered). */
  public boolean mayGo(long stamp, int generation) {
    return atOrBeforeBound(stamp, generation) && !after(stamp, generation, cap) && !after(stamp, generation, pausedAt);
  }

  private static boolean after(long stamp, int generation, Level level) {
    return compare(stamp, generation, level.stamp(), level.generation()) > 0;
  }

  /**
   * Pauses the run at the model's present: from now on nothing later than the bound, or than model time {@code
   * clockNanos} (the clock's, when the model is idle ahead of it: a timer due later than the clock waits), is handed
   * over, until {@link #resume}. Events at the present that are handed over already finish; what they cause waits.
   * Returns the level the run is paused at. A second pause keeps the first's level.
   */
  public synchronized Level pause(long clockNanos) {
    Level b = bound();
    Level clock = new Level(clockNanos, Integer.MAX_VALUE);
    return pauseAt(b.compareTo(clock) <= 0 ? b : clock);
  }

  /** Pauses at {@code level} (a partitioned run's common one, {@link Causality#pause}); a second pause keeps the first's. */
  public synchronized Level pauseAt(Level level) {
    if (pausedAt != Level.TOP) return pausedAt;
    pausedAt = level;
    return pausedAt;
  }

  /** The level the run is paused at ({@link Level#TOP}: not paused). */
  public Level pausedAt() {
    return pausedAt;
  }

  /** Whether the run is paused. */
  public boolean paused() {
    return pausedAt != Level.TOP;
  }

  /**
   * Resumes a paused run: the pause's cap is lifted and every inbox waiting for a level the bound has reached (and
   * the end's cap, if any, allows) is woken; the others are woken as the bound gets to them, as before the pause.
   */
  public void resume() {
    List<Waiter> wake = new ArrayList<>();
    List<Long> tokens = new ArrayList<>();
    synchronized (this) {
      if (pausedAt == Level.TOP) return;
      pausedAt = Level.TOP;
      Level b = bound();
      Level upTo = b.compareTo(cap) <= 0 ? b : cap;
      while (waiting.firstAtOrBefore(upTo.stamp(), upTo.generation())) {
        wake.add(waiting.firstWaiter());
        tokens.add(waiting.firstToken());
        waiting.removeFirst();
      }
    }
    for (int i = 0; i < wake.size(); i++) wake.get(i).wake(tokens.get(i));
  }

  /**
   * Ends the run at {@code level}: nothing later is handed over from now on, so every actor keeps the state it had
   * at the end, whenever anyone asks for it.
   */
  public void freeze(Level level) {
    cap = level;
  }

  /** The level the run was frozen at ({@link Level#TOP}: not frozen). */
  public Level cap() {
    return cap;
  }

  /** Whether the run is frozen and every event up to its end has been handled. */
  public boolean settled() {
    Level c = cap;
    return c != Level.TOP && bound().compareTo(c) > 0;
  }

  /** Outstanding events (diagnostics and tests). */
  public synchronized long outstanding() {
    return outstanding.events();
  }

  @Override
  public synchronized String toString() {
    return "Frontier[bound " + bound() + ", " + outstanding.size() + " model times, " + waiting.size() + " waiting]";
  }
}
