/**
 * GPU memory: how much device memory each VM may hold. A {@link org.gpuemu.policies.memory.MemoryPolicy} answers a
 * guest's allocation with {@link org.gpuemu.policies.memory.MemoryDecision} (granted, or rejected with a reason
 * that reaches the guest and the report; never granted silently past a cap) and tracks frees; the GpuMemory actor
 * owns the slots. Policies are found by name in {@link org.gpuemu.policies.memory.MemoryPolicies}; {@code static}
 * is the fixed-cap baseline that gBalloon's dynamic slots are compared against.
 */
package org.gpuemu.policies.memory;
