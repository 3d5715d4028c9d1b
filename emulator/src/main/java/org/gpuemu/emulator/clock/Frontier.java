package org.gpuemu.emulator.clock;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * event is later than the bound {@link #park} and are woken when the bound reaches it.
 *
 * <p>Thread-safe: one lock, held for a few map operations; the bound itself is read without it.
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
      int c = Long.compare(stamp, o.stamp);
      return c != 0 ? c : Integer.compare(generation, o.generation);
    }
  }

  /** What is woken when the bound reaches the level it waits for. */
  public interface Waiter {
    void wake();
  }

  private final TreeMap<Level, int[]> outstanding = new TreeMap<>();
  private final TreeMap<Level, List<Waiter>> waiting = new TreeMap<>();
  private volatile Level bound = Level.TOP;
  /** The level past which nothing is handed over any more (the run has ended): TOP while it goes. */
  private volatile Level cap = Level.TOP;

  /** The earliest level of an event not yet handled ({@link Level#TOP}: none). */
  public Level bound() {
    return bound;
  }

  /** An event at {@code level} came into being. */
  public void add(Level level) {
    synchronized (this) {
      int[] n = outstanding.get(level);
      if (n == null) {
        outstanding.put(level, new int[] {1});
        if (level.compareTo(bound) < 0) bound = level;
      } else {
        n[0]++;
      }
    }
  }

  /** An event at {@code level} has been handled, or dropped; wakes whoever waited for the new bound. */
  public void done(Level level) {
    List<Waiter> wake = null;
    synchronized (this) {
      int[] n = outstanding.get(level);
      if (n == null) throw new IllegalStateException("no outstanding event at " + level);
      if (--n[0] > 0) return;
      outstanding.remove(level);
      if (!level.equals(bound)) return;
      Level next = outstanding.isEmpty() ? Level.TOP : outstanding.firstKey();
      bound = next;
      if (waiting.isEmpty() || waiting.firstKey().compareTo(next) > 0 || next.compareTo(cap) > 0) return;
      wake = new ArrayList<>();
      Map<Level, List<Waiter>> due = waiting.headMap(next, true);
      for (List<Waiter> ws : due.values()) wake.addAll(ws);
      due.clear();
    }
    for (Waiter w : wake) w.wake();
  }

  /**
   * Whether an event at {@code level} may be handled now: nothing earlier is outstanding and the run has not ended
   * before it. If not, {@code waiter} is woken once the bound reaches {@code level} (never, past the cap).
   */
  public boolean releasable(Level level, Waiter waiter) {
    if (level.compareTo(bound) <= 0 && level.compareTo(cap) <= 0) return true;
    synchronized (this) {
      if (level.compareTo(bound) <= 0 && level.compareTo(cap) <= 0) return true;
      List<Waiter> ws = waiting.computeIfAbsent(level, l -> new ArrayList<>(2));
      if (!ws.contains(waiter)) ws.add(waiter);
      return false;
    }
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
    return c != Level.TOP && bound.compareTo(c) > 0;
  }

  /** Outstanding events (diagnostics and tests). */
  public synchronized long outstanding() {
    long n = 0;
    for (int[] c : outstanding.values()) n += c[0];
    return n;
  }

  @Override
  public synchronized String toString() {
    return "Frontier[bound " + bound + ", " + outstanding.size() + " levels, " + waiting.size() + " waiting]";
  }
}
