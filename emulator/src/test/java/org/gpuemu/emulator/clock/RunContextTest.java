package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RunContextTest {
  private static final long US = 1_000;

  @Test
  void received_actsNeverBeforeTheLatestEvent_andRecordsHowMuchEarlierAMessageWasStamped() {
    ManualClock clock = new ManualClock();
    RunContext run = new RunContext(clock, new TimerLateness(clock));

    assertEquals(500 * US, run.received(100 * US, 500 * US), "in order: acts at the message's time");
    assertEquals(500 * US, run.received(500 * US, 500 * US), "same time: in order");
    // a message stamped 300 us earlier than an event already handled: handled 300 us late in model time
    assertEquals(800 * US, run.received(800 * US, 500 * US));

    TimerLateness.Snapshot skew = run.skew().snapshot();
    assertEquals(3, skew.count());
    assertEquals(300, skew.max());
    assertEquals(0, skew.p50());
    assertEquals(0, run.lateness().snapshot().count(), "timer lateness is a record of its own");
  }
}
