/**
 * gBalloon (Park et al., "Ballooning Graphics Memory Space in Full GPU Virtualization Environments", gballoon.txt
 * §2-3) and its gVirt baselines: guests' high global graphics memory in 64 MB slots that vGPUs share
 * ({@link org.gpuemu.policies.gballoon.GraphicsMemory}, {@link org.gpuemu.policies.gballoon.SlotMap}), the GTT copy
 * a context switch costs ({@link org.gpuemu.policies.gballoon.CopySet}, {@link
 * org.gpuemu.policies.gballoon.CopyCost}), the overhead measure f(W, R_copy) of Eq. 1-3 ({@link
 * org.gpuemu.policies.gballoon.Overhead}, {@link org.gpuemu.policies.gballoon.Band}) and Algorithm 1 ({@link
 * org.gpuemu.policies.gballoon.AdjustmentAlgorithm}). {@link org.gpuemu.policies.gballoon.GvirtStaticPolicy}
 * ({@code static-384}, {@code static-1024}, ...) fixes each VM's slots; {@link
 * org.gpuemu.policies.gballoon.GballoonPolicy} ({@code gballoon}) expands them on lack of memory and reduces them by
 * f. The GpuMemory actor drives both through {@link org.gpuemu.policies.gballoon.GttMemoryPolicy}.
 */
package org.gpuemu.policies.gballoon;
