package org.gpuemu.policies.nvidia;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The MIG User Guide's profiles and placement rules ("Supported MIG Profiles", nvidia-smi mig -lgipp), replayed. */
class MigPlacementTest {
  private static final MigGpu A100 = MigGpu.of("a100-40gb").orElseThrow();
  private static final MigGpu H100 = MigGpu.of("h100-80gb").orElseThrow();

  private static String refused(MigPlacement p, String owner, String profile, Integer start) {
    return assertThrows(IllegalArgumentException.class,
        () -> p.place(owner, profile, Optional.ofNullable(start))).getMessage();
  }

  @Test
  void sevenOneSliceInstances_fillTheGpu_anEighthIsRefused() {
    MigPlacement p = new MigPlacement(A100);
    for (int i = 0; i < 7; i++) assertEquals(i, p.place("t" + i, "1g.5gb", Optional.empty()).start());
    assertTrue(refused(p, "t7", "1g.5gb", null).contains("at most 7"));
  }

  @Test
  void fourPlusThree_isTheDocumentedMixedLayout() {
    MigPlacement p = new MigPlacement(A100);
    assertEquals(0, p.place("a", "4g.20gb", Optional.empty()).start());
    assertEquals(4, p.place("b", "3g.20gb", Optional.empty()).start());
    assertTrue(refused(p, "c", "1g.5gb", null).contains("0 of 7 are left"));
  }

  @Test
  void twoThreeSliceInstances_takeEveryMemorySlice_soAOneSliceInstanceDoesNotFit() {
    // 3g.20gb occupies 4 memory slices ({0,4}:4) but 3 compute slices: 3 + 3 leaves a compute slice and no memory
    MigPlacement p = new MigPlacement(A100);
    p.place("a", "3g.20gb", Optional.empty());
    p.place("b", "3g.20gb", Optional.empty());
    assertTrue(refused(p, "c", "1g.5gb", null).contains("overlaps"));
  }

  @Test
  void startsOutsideTheProfilesDocumentedOnes_areRefused() {
    MigPlacement p = new MigPlacement(A100);
    assertTrue(refused(p, "a", "1g.10gb", 1).contains("[0, 2, 4, 6]")); // {0,2,4,6}:2
    assertTrue(refused(p, "a", "3g.20gb", 2).contains("[0, 4]"));
    assertTrue(refused(p, "a", "4g.20gb", 4).contains("[0]"));
  }

  @Test
  void threeTwoSliceInstancesAndAOneSlice() {
    MigPlacement p = new MigPlacement(A100);
    for (int i = 0; i < 3; i++) assertEquals(2 * i, p.place("t" + i, "2g.10gb", Optional.empty()).start());
    assertEquals(6, p.place("t3", "1g.5gb", Optional.empty()).start());
    assertTrue(refused(p, "t4", "2g.10gb", null).contains("at most 3"));
  }

  @Test
  void profilesOfAnotherGpu_areNotThisOnes() {
    assertTrue(refused(new MigPlacement(A100), "a", "1g.10gb+me", null).contains("not one of a100-40gb"));
    assertTrue(refused(new MigPlacement(H100), "a", "1g.5gb", null).contains("not one of h100-80gb"));
  }

  @Test
  void profileFigures() {
    MigProfile p = A100.profile("3g.20gb").orElseThrow();
    assertEquals(3, p.copyEngines());
    assertEquals(42, p.sms());
    assertEquals(2, p.maxInstances());
    assertEquals(98, A100.profile("7g.40gb").orElseThrow().sms());
    assertEquals(7, H100.profile("1g.10gb").orElseThrow().maxInstances());
  }

  @Test
  void mps_percentageCapAndContainment() {
    assertEquals(54, MpsRules.activeSms(50, 108));
    assertEquals(36, MpsRules.activeSms(33, 108)); // 35.64 rounded up
    assertEquals(1, MpsRules.activeSms(1, 82));
    assertEquals(30, MpsRules.effectivePercentage(30, 60), "the client only further constrains the daemon");
    assertThrows(IllegalArgumentException.class, () -> MpsRules.activeSms(0, 108));
    assertThrows(IllegalArgumentException.class, () -> MpsRules.activeSms(101, 108));
    assertEquals(MpsRules.BlastRadius.EVERY_CLIENT_ON_THE_GPU,
        MpsRules.blastRadius(MpsRules.Architecture.VOLTA_OR_LATER));
    assertEquals(MpsRules.BlastRadius.EVERY_CLIENT_OF_THE_SERVER, MpsRules.blastRadius(MpsRules.Architecture.PRE_VOLTA));
  }
}
