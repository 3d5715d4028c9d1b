package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

class FairnessMetricsTest {
  private static final double EXACT = 1e-12;

  @Test
  void idealFairThroughput_splitsTheAloneThroughputByWeight() {
    // Figure 8's weights 1:2:3 and a benchmark that alone completes 60 iterations per second.
    assertEquals(Map.of("vm1", 10.0, "vm2", 20.0, "vm3", 30.0),
        FairnessMetrics.idealFairThroughputs(60, Map.of("vm1", 1, "vm2", 2, "vm3", 3)));
  }

  @Test
  void mmrAndOverhead_ofAPerfectlyFairRun_areOne() {
    SortedMap<String, Double> ideal = FairnessMetrics.idealFairThroughputs(60, Map.of("a", 1, "b", 2, "c", 3));
    SortedMap<String, Double> x = FairnessMetrics.normalizedThroughputs(ideal, ideal);
    assertEquals(1.0, FairnessMetrics.mmr(x.values()), EXACT);
    assertEquals(1.0, FairnessMetrics.aggregatedOverhead(60, ideal.values()), EXACT);
  }

  @Test
  void normalizedThroughput_mmr_andOverhead_followTheirDefinitions() {
    SortedMap<String, Double> ideal = FairnessMetrics.idealFairThroughputs(60, Map.of("a", 1, "b", 2, "c", 3));
    Map<String, Double> measured = Map.of("a", 12.0, "b", 19.0, "c", 27.0);
    SortedMap<String, Double> x = FairnessMetrics.normalizedThroughputs(measured, ideal);
    assertEquals(1.2, x.get("a"), EXACT);
    assertEquals(0.95, x.get("b"), EXACT);
    assertEquals(0.9, x.get("c"), EXACT);
    assertEquals(0.9 / 1.2, FairnessMetrics.mmr(x.values()), EXACT, "min x / max x");
    assertEquals(60.0 / 58.0, FairnessMetrics.aggregatedOverhead(60, measured.values()), EXACT,
        "ideal aggregated / measured aggregated");
  }

  @Test
  void metrics_refuseUndefinedInputs() {
    assertThrows(IllegalArgumentException.class, () -> FairnessMetrics.mmr(List.of()));
    assertThrows(IllegalArgumentException.class, () -> FairnessMetrics.mmr(List.of(0.0, 0.0)));
    assertThrows(IllegalArgumentException.class, () -> FairnessMetrics.aggregatedOverhead(60, List.of(0.0)));
    assertThrows(IllegalArgumentException.class, () -> FairnessMetrics.idealFairThroughputs(60, Map.of("a", 0)));
    assertThrows(IllegalArgumentException.class,
        () -> FairnessMetrics.normalizedThroughputs(Map.of("a", 1.0), Map.of("b", 1.0)));
  }
}
