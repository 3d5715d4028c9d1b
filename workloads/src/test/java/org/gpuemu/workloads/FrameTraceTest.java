package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-frame CSV and its replay as a game. */
class FrameTraceTest {
  private static String problem(String... lines) {
    TraceException e = assertThrows(TraceException.class, () -> FrameTrace.parse(List.of(lines), "f.csv"));
    assertEquals(1, e.problems().size(), e.problems().toString());
    return e.problems().get(0);
  }

  @Test
  void goodRows_withCommentsAndColumnsInAnyOrder() throws TraceException {
    List<FrameTrace.Frame> frames = FrameTrace.parse(List.of("# synthetic", "gpu_ms,start_ms,note,cpu_ms",
        "8,0,x,4", "", "9.5,16.5,y,4.25"), "f.csv");
    assertEquals(2, frames.size());
    assertEquals(new FrameTrace.Frame(5, 16_500_000, 4_250_000, 9_500_000), frames.get(1));
  }

  @Test
  void missingColumn_isAnErrorAtTheHeader() {
    assertEquals("f.csv:1: expected a header with the columns start_ms,cpu_ms,gpu_ms; missing [gpu_ms] in "
        + "[start_ms, cpu_ms]", problem("start_ms,cpu_ms", "0,1"));
  }

  @Test
  void badNumber_isAnErrorWithItsLine() {
    assertEquals("f.csv:3: expected cpu_ms a number, got 'fast'", problem("start_ms,cpu_ms,gpu_ms", "0,4,8",
        "16,fast,8"));
  }

  @Test
  void zeroGpuTime_isAnError() {
    assertEquals("f.csv:2: expected gpu_ms > 0 (at least 1 ns), got 0", problem("start_ms,cpu_ms,gpu_ms", "0,4,0"));
  }

  @Test
  void framesOutOfOrder_areAnError() {
    assertEquals("f.csv:3: expected frames in start order: starts at 0 ms, not after line 2's frame",
        problem("start_ms,cpu_ms,gpu_ms", "0,4,8", "0,4,8"));
  }

  @Test
  void wrongFieldCount_isAnError() {
    assertEquals("f.csv:2: expected 3 comma-separated fields as in the header, got 2",
        problem("start_ms,cpu_ms,gpu_ms", "0,4"));
  }

  @Test
  void noRows_isAnError() {
    assertTrue(problem("start_ms,cpu_ms,gpu_ms").contains("expected at least one frame row"));
  }

  @Test
  void replay_pacesEachFrameToItsInterval_andScalesGpuTimeBySms() {
    List<FrameTrace.Frame> frames = List.of(new FrameTrace.Frame(1, 0, 4_000_000, 8_000_000),
        new FrameTrace.Frame(2, 20_000_000, 5_000_000, 6_000_000),
        new FrameTrace.Frame(3, 30_000_000, 3_000_000, 4_000_000));
    FrameReplay replay = new FrameReplay("g", "g", frames, 41, 82, 1);
    // interval 20 ms - 4 ms CPU = 16 ms pacing; GPU recorded on 41 SMs, emulated on 82: halved
    assertEquals(new Scene(4_000_000, 4_000_000, 16_000_000), replay.scenes().get(0));
    assertEquals(new Scene(5_000_000, 3_000_000, 5_000_000), replay.scenes().get(1));
    // the last frame's interval is the mean of the others: 30 ms / 2 = 15 ms
    assertEquals(new Scene(3_000_000, 2_000_000, 12_000_000), replay.scenes().get(2));
  }

  @Test
  void replay_presentsOncePerFrame_andLoops() {
    List<FrameTrace.Frame> frames = List.of(new FrameTrace.Frame(1, 0, 4_000_000, 8_000_000),
        new FrameTrace.Frame(2, 10_000_000, 4_000_000, 8_000_000));
    Program p = new FrameReplay("g", "g", frames, 82, 82, 2).start(1);
    List<Step> steps = new ArrayList<>();
    int presents = 0;
    for (int i = 0; i < 40 && presents < 3; i++) {
      Step s = p.next(0);
      steps.add(s);
      if (s instanceof Step.Present) presents++;
    }
    assertEquals(3, presents, "a two-frame trace loops: " + steps);
    // frame = cpu 2 ms, launch 4 ms, cpu 2 ms, sleep 6 ms, present with the last 4 ms batch
    assertEquals(new Step.CpuBurst(2_000_000), steps.get(0));
    assertEquals(new Step.Sleep(6_000_000), steps.get(3));
  }
}
