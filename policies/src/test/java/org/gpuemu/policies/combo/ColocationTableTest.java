package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class ColocationTableTest {
  private static final double MS = 1e6;

  /** The makespan of two equal kernels of {@code solo} co-running under the table's rates. */
  private static double makespanOfEqualPair(ColocationTable table, KernelType a, KernelType b, double solo) {
    double[] rates = table.rates(List.of(a, b));
    assertEquals(rates[0], rates[1], 1e-15, "a pair progresses at one rate");
    return solo / rates[0];
  }

  @ParameterizedTest(name = "{0}+{1}: {2}")
  @CsvSource({
      "RT, CD, 0.3987", "RT, TC, 0.3462", "CD, TC, 0.4412", "RT, RT, 0", "CD, CD, 0", "TC, TC, 0"})
  void table3_eachPairCoRunningWithEqualSoloTimes_givesItsMakespanReductionByEq1(KernelType a, KernelType b,
      double reduction) {
    // §2.3.1: the three synthetic kernels have the same solo time; Eq. 1 over the co-run makespan is Table 3's value
    double solo = 2 * MS;
    double colo = makespanOfEqualPair(ColocationTable.table3(), a, b, solo);
    assertEquals(reduction, ColocationTable.makespanReduction(solo, solo, colo), 1e-12);
  }

  @ParameterizedTest(name = "{0}+{1}: {2}")
  @CsvSource({"RT, CD, 0.137", "RT, TC, 0", "CD, TC, 0.357", "RT, RT, 0", "CD, CD, 0", "TC, TC, 0"})
  void comboTable_isFigure7ForRtPairs_andSection4_2sRealKernelsForCdTc(KernelType a, KernelType b, double reduction) {
    // CD+TC: §1's 18.1 % over §4.2's 40 CD pairs less Figure 7's 32 RT+CD pairs at 13.7 %: (40 × 18.1 − 32 × 13.7) / 8
    // Figure 7: RT+CD 13.7 % on average after PTB conversion, RT+TC "consistently 0 or even negative"
    double solo = 2 * MS;
    double colo = makespanOfEqualPair(ColocationTable.combo(), a, b, solo);
    assertEquals(reduction, ColocationTable.makespanReduction(solo, solo, colo), 1e-12);
    assertEquals(reduction, ColocationTable.combo().reduction(b, a), 1e-15, "unordered pairs");
  }

  @ParameterizedTest(name = "{0}+{1} with a {2} CD kernel: {3}")
  @CsvSource({
      "RT, CD, COMPUTE, 0.2055", "RT, CD, MEMORY, 0.0685", "CD, RT, COMPUTE, 0.2055",
      "TC, CD, COMPUTE, 0.3790", "CD, TC, MEMORY, 0.3350", "RT, CD, UNCLASSIFIED, 0.137", "CD, TC, UNCLASSIFIED, 0.357"})
  void comboTable_byMemoryClass_keepsEachPairKindsMean_andOrdersComputeAboveMemory(KernelType a, KernelType b,
      MemoryClass cdClass, double reduction) {
    ColocationTable t = ColocationTable.combo();
    MemoryClass ma = a == KernelType.CD ? cdClass : MemoryClass.UNCLASSIFIED;
    MemoryClass mb = b == KernelType.CD ? cdClass : MemoryClass.UNCLASSIFIED;
    assertEquals(reduction, t.reduction(a, ma, b, mb), 5e-4);
    // the same through the execution model: two equal kernels co-running end after 2T(1 - r)
    double[] rates = t.rates(List.of(a, b), List.of(ma, mb));
    assertEquals(2 * MS * (1 - reduction), MS / rates[0], 1e-3 * MS);
  }

  @Test
  void comboTable_classesAverageToFigure7And1_andStayWithinFigure7sLargest() {
    ColocationTable t = ColocationTable.combo();
    double rtCompute = t.reduction(KernelType.RT, MemoryClass.UNCLASSIFIED, KernelType.CD, MemoryClass.COMPUTE);
    double rtMemory = t.reduction(KernelType.RT, MemoryClass.UNCLASSIFIED, KernelType.CD, MemoryClass.MEMORY);
    double tcCompute = t.reduction(KernelType.CD, MemoryClass.COMPUTE, KernelType.TC, MemoryClass.UNCLASSIFIED);
    double tcMemory = t.reduction(KernelType.CD, MemoryClass.MEMORY, KernelType.TC, MemoryClass.UNCLASSIFIED);
    // Figure 7: 16 compute- and 16 memory-intensive RT+CD pairs average 13.7 %, none above 25.9 %
    assertEquals(0.137, (rtCompute + rtMemory) / 2, 1e-12);
    assertTrue(rtCompute <= ColocationTable.FIGURE7_RT_CD_MAX && rtMemory >= 0);
    // §1: §4.2's 40 CD pairs (32 RT+CD, 8 CD+TC, half of each class) average 18.1 %
    assertEquals(0.181, (16 * rtCompute + 16 * rtMemory + 4 * tcCompute + 4 * tcMemory) / 40, 1e-12);
    // the contention lost against Table 3's synthetic kernels is in the same ratio for both pair kinds
    assertEquals((0.3987 - rtCompute) / (0.3987 - rtMemory), (0.4412 - tcCompute) / (0.4412 - tcMemory), 1e-12);
    // a classified RT or TC kernel does not change the pair; a CD pair still serialises
    assertEquals(0, t.reduction(KernelType.CD, MemoryClass.COMPUTE, KernelType.CD, MemoryClass.MEMORY));
    assertEquals(0, t.reduction(KernelType.RT, MemoryClass.MEMORY, KernelType.TC, MemoryClass.COMPUTE));
  }

  @Test
  void tablesWithoutClasses_giveEveryClassTheirOneValue() {
    for (ColocationTable t : List.of(ColocationTable.table3(), ColocationTable.none())) {
      for (MemoryClass m : MemoryClass.values()) {
        assertEquals(t.reduction(KernelType.RT, KernelType.CD),
            t.reduction(KernelType.RT, MemoryClass.UNCLASSIFIED, KernelType.CD, m));
        assertEquals(t.reduction(KernelType.CD, KernelType.TC),
            t.reduction(KernelType.CD, m, KernelType.TC, MemoryClass.UNCLASSIFIED));
      }
    }
  }

  @Test
  void sameTypeSerialises_twoEqualKernelsTakeTwiceAsLong() {
    // Table 3's 0 %: two 2 ms CD kernels together take 4 ms
    assertEquals(4 * MS, makespanOfEqualPair(ColocationTable.combo(), KernelType.CD, KernelType.CD, 2 * MS), 1e-6);
  }

  @Test
  void eq1_paperFormula() {
    // (T1 + T2 − Tcolo) / (T1 + T2): 1 ms and 3 ms kernels taking 3.2 ms together gain 20 %
    assertEquals(0.2, ColocationTable.makespanReduction(1, 3, 3.2), 1e-12);
    assertThrows(IllegalArgumentException.class, () -> ColocationTable.makespanReduction(0, 3, 3));
  }

  @Test
  void threeCoRunners_shareEquallyWhateverTheirTypes() {
    // the paper measures pairs only
    assertArrayEquals(new double[] {1 / 3.0, 1 / 3.0, 1 / 3.0},
        ColocationTable.combo().rates(List.of(KernelType.RT, KernelType.CD, KernelType.TC)), 1e-15);
    assertArrayEquals(new double[] {1.0}, ColocationTable.combo().rates(List.of(KernelType.TC)), 1e-15);
    assertArrayEquals(new double[0], ColocationTable.combo().rates(List.of()), 1e-15);
  }

  @Test
  void none_givesNoGainToAnyPair() {
    for (double r : ColocationTable.none().pairReductions().values()) assertEquals(0.0, r);
  }

  @Test
  void pairReductions_areKeyedInKernelTypeOrder_asTheEmulatorsFluidModelReadsThem() {
    Map<String, Double> expected = new LinkedHashMap<>();
    expected.put("RT+CD", 0.137);
    expected.put("RT+TC", 0.0);
    expected.put("CD+TC", 0.357);
    Map<String, Double> actual = ColocationTable.combo().pairReductions();
    assertEquals(expected.keySet(), actual.keySet());
    expected.forEach((pair, r) -> assertEquals(r, actual.get(pair), 1e-12, pair));
  }

  @Test
  void of_readsPairsInEitherOrder_andRoundTripsPairReductions() {
    ColocationTable t = ColocationTable.of(Map.of("CD+RT", 0.2, "tc+cd", 0.3));
    assertEquals(0.2, t.reduction(KernelType.RT, KernelType.CD));
    assertEquals(0.3, t.reduction(KernelType.CD, KernelType.TC));
    assertEquals(0.0, t.reduction(KernelType.RT, KernelType.TC));
    assertEquals(ColocationTable.table3().pairReductions(),
        ColocationTable.of(ColocationTable.table3().pairReductions()).pairReductions());
  }

  @Test
  void of_rejectsSameTypePairs_unknownTypes_andReductionsAboveHalf() {
    assertEquals("co-location pair CD+CD: kernels of one type serialise (0 %)",
        assertThrows(IllegalArgumentException.class, () -> ColocationTable.of(Map.of("CD+CD", 0.1))).getMessage());
    assertEquals("co-location pair 'CD+XX': unknown kernel type 'XX'; valid: [RT, CD, TC]",
        assertThrows(IllegalArgumentException.class, () -> ColocationTable.of(Map.of("CD+XX", 0.1))).getMessage());
    // above 50 % a kernel would run faster beside another than alone (Table 3's "theoretical value")
    assertThrows(IllegalArgumentException.class, () -> ColocationTable.of(Map.of("CD+TC", 0.51)));
    assertThrows(IllegalArgumentException.class, () -> ColocationTable.of(Map.of("CD+TC", -0.1)));
    assertThrows(IllegalArgumentException.class, () -> ColocationTable.of(Map.of("CD", 0.1)));
  }

  @Test
  void named_knowsTheBuiltInTables_andListsThemOnAnUnknownName() {
    assertEquals(ColocationTable.table3().pairReductions(), ColocationTable.named("table3").pairReductions());
    assertEquals(ColocationTable.combo().pairReductions(), ColocationTable.named("combo").pairReductions());
    assertEquals(ColocationTable.none().pairReductions(), ColocationTable.named("none").pairReductions());
    assertEquals("unknown co-location table 'x'; valid: combo, none, table3",
        assertThrows(IllegalArgumentException.class, () -> ColocationTable.named("x")).getMessage());
  }
}
