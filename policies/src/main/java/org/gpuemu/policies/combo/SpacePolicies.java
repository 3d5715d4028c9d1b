package org.gpuemu.policies.combo;

import java.util.List;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.policies.spi.PolicySpec;

/**
 * The built-in space-sharing policies (COMBO, combo.txt §5, and its PilotFish baseline, as published and as COMBO
 * describes it), registered through the
 * plugin interface. The policy learns the GPU's SMs, the game's FPS, its Eq. 4 predictor and the co-location table
 * from the run, not from its parameters.
 *
 * <p>Why a kind of its own and not a GPU policy: a {@code GpuPolicy} picks which vGPU's queued request goes to the
 * GPU next, one request at a time, and must dispatch every request. A space-sharing policy decides something else:
 * when a frame starts, how the SMs are grouped, which version of the render kernels runs, and which BE kernel is
 * launched where; it never sees the game's render kernels one by one, and a BE kernel it holds back may wait for a
 * whole frame. Forcing that through {@code GpuDecision.Dispatch} would hide the layout, placement and timing in side
 * channels. A scenario still selects one at {@code scenario.scheduler.gpu.policy}: every policy name is unique
 * across kinds, so the loader can look a name up once.
 */
public final class SpacePolicies implements PolicyProvider {
  // kept free before every limit a kernel is fitted to (combo §6.7: kernel launch latency "less than 0.1ms")
  private static final Param GUARD = Param.duration("guard", "100us",
      "kept free before every limit a kernel is fitted to (§6.7: launch latency under 0.1 ms)");
  private static final Param MERGE = Param.flag("merge-headrooms", true, "delay the frame after an undelayed one by "
      + "1/fps - that one's render time, so two headrooms join (§5.5); false for §5.2's Table 6, before merging");
  // the paper gives none: a quarter second at 120 FPS, about ten load changes of §5.2's dynamic load
  private static final Param WINDOW = Param.integer("state-window", 30,
      "frames whose predicted render times Eq. 2 spans (derived: a quarter second at 120 FPS)");
  private static final Param THRESHOLD = Param.real("state-threshold", 0.1,
      "Eq. 3: static (exact scheme) below 10 %, dynamic (relaxed scheme) from it");
  // combo §6.7: "The average prediction time is 0.06ms, the selection of the scheme takes 0.02ms" (per frame, on the
  // host, sequential with the kernel launch, whose latency is the guard)
  private static final Param PREDICTION = Param.duration("prediction-overhead", "60us",
      "host time of a frame's Eq. 4 prediction before its kernels launch (§6.7: 0.06 ms)");
  private static final Param SELECTION = Param.duration("selection-overhead", "20us",
      "host time of a frame's scheme selection, Eq. 2-3, after the prediction (§6.7: 0.02 ms)");

  @Override public List<PolicySpec<?>> policies() {
    return List.of(
        PolicySpec.space(PilotfishPolicy.NAME,
            "PilotFish as published (Zhang et al., ATC 2022): a BE kernel only if its profiled duration fits the idle "
                + "budget, 1/fps - the last frame's render time - outstanding kernels",
            params -> PilotfishPolicy.create()),
        PolicySpec.space(SpaceSharingPolicy.PILOTFISH_COMBO,
            "PilotFish as COMBO describes it: a BE kernel after a frame only if it fits before the next (combo §1, §2.2)",
            SpaceSharingPolicy::pilotfishCombo)
            .param(GUARD),
        PolicySpec.space(SpaceSharingPolicy.EXACT,
            "COMBO exact integrated SM sharing: Eq. 5 render group by the Eq. 4 estimate, CD+TC in the BE group (§5.1.1)",
            SpaceSharingPolicy::exact)
            .param(GUARD, PREDICTION),
        PolicySpec.space(SpaceSharingPolicy.RELAXED,
            "COMBO relaxed intra-SM sharing: BE CD beside RT within QoS, CD+TC between frames, headroom merging (§5.1.2)",
            SpaceSharingPolicy::relaxed)
            .param(GUARD, PREDICTION, MERGE),
        PolicySpec.space(SpaceSharingPolicy.COMBO,
            "COMBO: exact for a static load, relaxed for a dynamic one by Eq. 2-3, headroom merging (§5.3, §5.5)",
            SpaceSharingPolicy::combo)
            .param(GUARD, PREDICTION, SELECTION, MERGE, WINDOW, THRESHOLD),
        PolicySpec.space(SpaceSharingPolicy.COMBO_NM,
            "COMBO-NM: COMBO without headroom merging (§6.5)",
            SpaceSharingPolicy::comboNoMerge)
            .param(GUARD, PREDICTION, SELECTION, WINDOW, THRESHOLD));
  }
}
