package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.Test;

class CoRunForecastTest {
  private static final long MS = 1_000_000L;

  @Test
  void aCdKernelBesideTheRtPhase_stretchesTheFrameBy1Minus2rOfItsLength() {
    // RT+CD r = 13.7 %: both progress at 1/(2 × 0.863); the 2 ms BE kernel ends after 3.452 ms, the 4 ms RT phase
    // 2 ms later: 5.452 ms instead of 4, i.e. (1 − 2r) × 2 ms = 1.452 ms longer
    CoRunForecast f = new CoRunForecast(ColocationTable.combo());
    f.advanceTo(0);
    f.add(-1, KernelType.RT, 4 * MS);
    Map<Long, Long> ends = f.endsWith(0, 7, KernelType.CD, 2 * MS);
    assertEquals(3_452_000, ends.get(7L), 1);
    assertEquals(5_452_000, ends.get(-1L), 1);
  }

  @Test
  void aTcKernelBesideACdKernel_finishesBothAsTable3Says() {
    // Table 3's CD+TC r = 44.12 %: rate 1/(2 × 0.5588) = 0.8948; the 0.5 ms TC kernel ends after 0.5588 ms, the
    // 1.95 ms CD kernel, 0.5 ms of it done by then, 1.45 ms later: 2.0088 ms
    CoRunForecast f = new CoRunForecast(ColocationTable.table3());
    f.advanceTo(8 * MS);
    f.add(1, KernelType.CD, 1_950_000);
    Map<Long, Long> ends = f.endsWith(8 * MS, 2, KernelType.TC, 500_000);
    assertEquals(8 * MS + 558_800, ends.get(2L), 1);
    assertEquals(8 * MS + 2_008_800, ends.get(1L), 1);
  }

  @Test
  void advancing_progressesKernelsAtTheirCoRunRates_andForgetsNothingItWasNotTold() {
    CoRunForecast f = new CoRunForecast(ColocationTable.combo());
    f.advanceTo(0);
    f.add(-1, KernelType.RT, 4 * MS);
    f.add(7, KernelType.CD, 2 * MS);
    f.advanceTo(1_726_000); // half of the BE kernel's 3.452 ms: 1 ms of each done
    Map<Long, Long> ends = f.endsWith(1_726_000, 8, KernelType.TC, 1);
    // three co-runners now share equally: the 1 ns TC kernel takes 3 ns; then the pair goes on as before
    assertEquals(1_726_003, ends.get(8L), 1);
    assertEquals(3_452_002, ends.get(7L), 2);
    f.remove(7);
    assertEquals(4_726_000, f.endsWith(1_726_000, 9, KernelType.TC, 1).get(-1L), 4, "RT alone: 3 ms left");
  }

  @Test
  void kernelsAloneRunAtFullRate() {
    CoRunForecast f = new CoRunForecast(ColocationTable.combo());
    f.advanceTo(5);
    assertEquals(5 + 2 * MS, f.endsWith(5, 1, KernelType.CD, 2 * MS).get(1L));
  }
}
