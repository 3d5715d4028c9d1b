package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The run's safe time: what may go, who is woken when, and the pause's cap (the dashboard's pause). */
class FrontierTest {
  private final Frontier frontier = new Frontier();
  private final List<String> woken = new ArrayList<>();

  private Frontier.Waiter waiter(String name) {
    return token -> woken.add(name);
  }

  @Test
  void pause_capsAtTheBound_eventsThereGo_laterOnesWaitUntilResume() {
    frontier.add(10, 0);
    frontier.add(20, 0);
    Frontier.Level at = frontier.pause(15);
    assertEquals(new Frontier.Level(10, 0), at, "the bound, before the clock");
    assertTrue(frontier.paused());
    assertTrue(frontier.mayGo(10, 0), "the present's events still go");
    frontier.add(10, 1); // a message it sends: after the cap
    assertFalse(frontier.releasable(10, 1, waiter("message"), 1));
    frontier.done(10, 0);
    assertEquals(new Frontier.Level(10, 1), frontier.bound());
    assertEquals(List.of(), woken, "the bound reached it, but the run is paused");
    frontier.resume();
    assertEquals(List.of("message"), woken, "woken at the resume");
    assertTrue(frontier.mayGo(10, 1));
    assertFalse(frontier.paused());
  }

  @Test
  void pause_whenTheModelIsIdleAheadOfTheClock_capsAtTheClock() {
    frontier.add(50, 0); // the next timer, not yet due
    Frontier.Level at = frontier.pause(30);
    assertEquals(30, at.stamp());
    assertFalse(frontier.releasable(50, 0, waiter("timer"), 1), "it fires in wall time but waits for the resume");
    assertEquals(at, frontier.pause(40), "a second pause keeps the first's level");
    frontier.resume();
    assertEquals(List.of("timer"), woken);
  }

  @Test
  void resume_wakesOnlyUpToTheBound_theRestAsTheBoundGetsThere() {
    frontier.add(10, 0);
    frontier.add(20, 0);
    frontier.pause(100);
    assertFalse(frontier.releasable(20, 0, waiter("later"), 1));
    frontier.resume();
    assertEquals(List.of(), woken, "20 is not the bound yet");
    frontier.done(10, 0);
    assertEquals(List.of("later"), woken);
  }
}
