package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class PhaseSequenceTest {
  private static final long MS = 1_000_000L;
  private static final StepLoop A = new StepLoop("a", "a", List.of(new Step.CpuBurst(1)));
  private static final StepLoop B = new StepLoop("b", "b", List.of(new Step.CpuBurst(2)));

  @Test
  void phasesRunInTurn_byEmulatedTime_andLoop() {
    Program p = new PhaseSequence("s", "s", List.of(new PhaseSequence.Phase(A, 10 * MS),
        new PhaseSequence.Phase(B, 5 * MS)), true).start(1);
    assertEquals(new Step.CpuBurst(1), p.next(100 * MS)); // the program starts at 100 ms
    assertEquals(new Step.CpuBurst(1), p.next(109 * MS));
    assertEquals(new Step.CpuBurst(2), p.next(110 * MS));
    assertEquals(new Step.CpuBurst(1), p.next(115 * MS), "looped");
  }

  @Test
  void withoutLoop_theProgramEndsAfterTheLastPhase() {
    Program p = new PhaseSequence("s", "s", List.of(new PhaseSequence.Phase(A, 10 * MS)), false).start(1);
    assertEquals(new Step.CpuBurst(1), p.next(0));
    assertNull(p.next(10 * MS));
  }

  @Test
  void aWorkloadThatEndsEarly_sleepsOutItsPhase() {
    Workload once = new Workload() {
      @Override public String name() { return "once"; }
      @Override public String description() { return "once"; }
      @Override public Program start(long seed) {
        boolean[] done = {false};
        return now -> {
          if (done[0]) return null;
          done[0] = true;
          return new Step.CpuBurst(1);
        };
      }
    };
    Program p = new PhaseSequence("s", "s", List.of(new PhaseSequence.Phase(once, 10 * MS)), true).start(1);
    assertEquals(new Step.CpuBurst(1), p.next(0));
    assertEquals(new Step.Sleep(7 * MS), p.next(3 * MS));
  }

  @Test
  void aZeroPhase_isRejected() {
    assertThrows(IllegalArgumentException.class, () -> new PhaseSequence.Phase(A, 0));
  }
}
