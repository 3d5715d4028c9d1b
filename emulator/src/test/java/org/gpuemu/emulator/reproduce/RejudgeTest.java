package org.gpuemu.emulator.reproduce;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Judging again from summaries keeps what the runs broke: a rejudged table notes the same broken runs. */
class RejudgeTest {
  @Test
  void aSummarysBrokenInvariantsAreReadBack() {
    Map<String, Object> doc = Map.of("invariants",
        Map.of("broken", List.of("liveness: vm 'dnn' made no progress for 10.113 s")));
    assertEquals(List.of("liveness: vm 'dnn' made no progress for 10.113 s"), Reproduction.brokenInvariants(doc));
  }

  @Test
  void aSummaryWithNothingBroken_orNoInvariantsBlock_readsBackNone() {
    assertEquals(List.of(), Reproduction.brokenInvariants(Map.of("invariants", Map.of("broken", List.of()))));
    assertEquals(List.of(), Reproduction.brokenInvariants(Map.of()));
  }
}
