/**
 * COMBO (Chen et al., "Maximizing the Utilization of GPUs Used by Cloud Gaming through Adaptive Co-location with
 * COMBO", combo.txt §2-6) and its baseline PilotFish: one game and best-effort (BE) applications sharing a GPU's SMs.
 * The pure parts: the co-location table of Table 3 and Figure 7 with Eq. 1 ({@link
 * org.gpuemu.policies.combo.ColocationTable}, which the emulator's SM-group fluid model executes), the Eq. 4 render
 * predictor ({@link org.gpuemu.policies.combo.RenderTimePredictor}), Eq. 5's SM split ({@link
 * org.gpuemu.policies.combo.SmPartition}), Eq. 2-3 scheme switching ({@link
 * org.gpuemu.policies.combo.SchemeSelector}), Eq. 6's BE throughput ({@link org.gpuemu.policies.combo.BeThroughput}),
 * and the policies themselves behind {@link org.gpuemu.policies.combo.SpacePolicy}: frame and BE events in, frame
 * plans (start, SM layout, kernel version, scheme) and BE launches out, found by name in {@link
 * org.gpuemu.policies.combo.SpacePolicies} ({@code pilotfish}, PilotFish as its authors published it, {@link org.gpuemu.policies.combo.PilotfishPolicy};
 * {@code pilotfish-combo}, PilotFish as combo.txt describes it; {@code combo-exact}, {@code combo-relaxed}, {@code
 * combo}, {@code combo-nm}).
 */
package org.gpuemu.policies.combo;
