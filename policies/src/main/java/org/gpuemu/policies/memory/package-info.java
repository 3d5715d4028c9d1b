/**
 * GPU memory: how much device memory each VM may hold. A {@link org.gpuemu.policies.memory.MemoryPolicy} answers a
 * guest's allocation with {@link org.gpuemu.policies.memory.MemoryDecision} (granted, or rejected with a reason
 * that reaches the guest and the report; never granted silently past a cap) and tracks frees; the GpuMemory actor
 * owns the slots. Policies are found by name in {@link org.gpuemu.policies.memory.MemoryPolicies}: {@code static}
 * is a fixed cap per VM; the slot policies of {@code org.gpuemu.policies.gballoon} ({@code static-384},
 * {@code static-1024}, {@code gballoon}, ...) add gVirt's shared slots and GTT copies behind a second interface.
 */
package org.gpuemu.policies.memory;
