package org.gpuemu.policies.combo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties every registered space policy must have, replayed in {@link SpaceBench}. */
@Tag("slow")
class EverySpacePolicyTest {
  /**
   * The union of every registered space policy's parameters, at their reference.conf values. A new policy that
   * reads a key missing here fails with "policy parameter '...' missing": add the key.
   */
  static final PolicyParams PARAMS = PolicyParams.of(Map.of(
      "guard", 100_000L,
      "merge-headrooms", "true",
      "state-window", 30L,
      "state-threshold", 0.1,
      "prediction-overhead", 60_000L,
      "selection-overhead", 20_000L));

  static Stream<Arguments> policiesAndGames() {
    return PolicyCatalog.builtIn().names(PolicyKind.SPACE).stream().flatMap(name -> Stream.of("combo-quake2", "combo-steel-dynamic",
        "combo-dutm-low-dynamic", "combo-ascent-medium").map(game -> Arguments.of(name, game)));
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("policiesAndGames")
  void everyPolicy_keepsEveryFrameWithinQos_harvestsBeWork_andStaysConsistent(String name, String game) {
    SpacePolicy policy = PolicyCatalog.builtIn().create(PolicyKind.SPACE, name, PARAMS);
    SpaceBench.Result r = SpaceBench.run(policy, game, List.of("combo-inception", "combo-cutcp"), 1_200, 5);
    assertEquals(1_200, r.frames(), "every frame rendered");
    assertEquals(0, r.misses(), name + " let frames miss their QoS target");
    assertTrue(r.throughput().total() > 0, name + " ran no BE kernel");
    assertEquals(List.of(), policy.checkInvariants());
  }

  @ParameterizedTest(name = "{0} with {1}")
  @MethodSource("policiesAndGames")
  void everyPolicy_decidesTheSameWay_forTheSameSeed(String name, String game) {
    SpaceBench.Result one = SpaceBench.run(PolicyCatalog.builtIn().create(PolicyKind.SPACE, name, PARAMS), game, List.of("combo-vgg16",
        "combo-fft"), 600, 11);
    SpaceBench.Result two = SpaceBench.run(PolicyCatalog.builtIn().create(PolicyKind.SPACE, name, PARAMS), game, List.of("combo-vgg16",
        "combo-fft"), 600, 11);
    assertEquals(one.completedByName(), two.completedByName());
    assertEquals(one.mergedFrames(), two.mergedFrames());
  }
}
