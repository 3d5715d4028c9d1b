package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CollaborativeTurnTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final long SLICE = 6 * MS;

  private final CollaborativeTurn turn = new CollaborativeTurn(SLICE, 5, 2);

  /** Dispatches one request alone (interposed) and completes it after {@code nanos}. */
  private void sample(long nanos) {
    assertTrue(turn.mayDispatch(0, 0));
    turn.dispatched();
    assertFalse(turn.mayDispatch(0, 1), "a sampled request is synchronized before the next one goes");
    turn.completed(nanos);
  }

  @Test
  void sampling_timesTheFirstFiveOneByOne_thenInfersHowManyFillTheSlice() {
    for (int i = 0; i < 4; i++) {
      sample(200 * US);
      assertEquals(CollaborativeTurn.Phase.SAMPLING, turn.phase(), "after sample " + (i + 1));
    }
    sample(200 * US);
    assertEquals(CollaborativeTurn.Phase.BATCH, turn.phase());
    // 1 ms used; (6 - 1) ms / 200 us mean = 25 more requests fill the slice.
    assertEquals(25, turn.batch());
  }

  @Test
  void batch_runsWithoutInterposition_upToTheHardwareQueue_andSyncsOnTheLast() {
    for (int i = 0; i < 5; i++) sample(200 * US);
    int dispatched = 0;
    while (turn.mayDispatch(0, 1)) { // one of its requests always on the GPU: pipelined
      turn.dispatched();
      dispatched++;
    }
    assertEquals(25, dispatched, "exactly the inferred batch");
    assertFalse(turn.mayDispatch(0, 0));
    assertFalse(turn.over(0, 1), "the last request is still running: the vGPU waits for it");
    assertTrue(turn.over(0, 0), "synchronized on the last request: the vGPU releases the GPU");
  }

  @Test
  void batch_neverExceedsTheHardwareQueueDepth() {
    for (int i = 0; i < 5; i++) sample(200 * US);
    assertTrue(turn.mayDispatch(0, 1));
    assertFalse(turn.mayDispatch(0, 2), "max-inflight 2");
  }

  @Test
  void inferredCount_roundsUpSoTheRequestsUseUpTheSlice() {
    for (int i = 0; i < 5; i++) sample(310 * US);
    // (6 - 1.55) ms / 310 us = 14.35: 15 requests "may use up the entire length of the time slice"
    assertEquals(15, turn.batch());
  }

  @Test
  void sampling_forcesARelease_whenTheSamplesAloneReachTheSlice() {
    sample(2 * MS);
    sample(2 * MS);
    assertFalse(turn.over(0, 0), "4 ms of 6");
    sample(2 * MS);
    assertEquals(6 * MS, turn.usage());
    assertEquals(CollaborativeTurn.Phase.SAMPLING, turn.phase(), "only 3 of 5 samples were taken");
    assertFalse(turn.mayDispatch(0, 0));
    assertTrue(turn.over(0, 0), "forced to release the GPU");
  }

  @Test
  void usageReachingTheSliceMidBatch_stopsTheBatch() {
    for (int i = 0; i < 5; i++) sample(200 * US);
    turn.dispatched();
    turn.completed(5 * MS); // a phase change: one batch request alone takes the rest of the slice
    assertFalse(turn.mayDispatch(0, 0));
    assertTrue(turn.over(0, 0));
  }

  @Test
  void idleHoldingTime_countsAsUsage_andBoundsAnIdleTurn() {
    sample(MS);
    turn.idled(2 * MS);
    assertEquals(3 * MS, turn.usage());
    assertEquals(10 * MS + 3 * MS, turn.idleUntil(10 * MS), "idle from 10 ms, 3 ms of the slice are left");
  }

  @Test
  void timedTurn_endsAtItsSliceOfWallTime_onceDrained() {
    TimedTurn timed = new TimedTurn(100 * MS, 30 * MS, 2);
    assertTrue(timed.mayDispatch(100 * MS, 1), "no sampling: pipelined from the start");
    assertFalse(timed.mayDispatch(100 * MS, 2));
    assertFalse(timed.mayDispatch(130 * MS, 0), "the slice is over");
    assertFalse(timed.over(131 * MS, 1));
    assertTrue(timed.over(131 * MS, 0));
    timed.completed(7 * MS);
    assertEquals(7 * MS, timed.usage());
    assertEquals(130 * MS, timed.idleUntil(110 * MS));
  }
}
