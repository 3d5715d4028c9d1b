/**
 * GPU sharing as NVIDIA ships it today, from the vendor's public documentation rather than a paper: the time-sliced
 * vGPU schedulers ({@code vgpu-best-effort}, {@code vgpu-equal-share}, {@code vgpu-fixed-share}; {@link
 * org.gpuemu.policies.nvidia.ShareSchedulerPolicy}, {@link org.gpuemu.policies.nvidia.VgpuSchedulerSettings}), the
 * documented vGPU types that fix a fixed-share fraction ({@link org.gpuemu.policies.nvidia.VgpuType}), the MIG GPU
 * instance profiles and their placement rules ({@link org.gpuemu.policies.nvidia.MigGpu}, {@link
 * org.gpuemu.policies.nvidia.MigPlacement}) and the MPS client limits and fault containment ({@link
 * org.gpuemu.policies.nvidia.MpsRules}). Every rule and default names its page and version; where the vendor is
 * silent, the class says so and says what the emulator does instead.
 */
package org.gpuemu.policies.nvidia;
