/**
 * Scheduling decisions as plain, deterministic Java: each policy takes events (a request queued, a vCPU woke, a
 * guest allocates memory) with the emulated time in nanoseconds and returns a closed decision type, never reading
 * a clock or touching a thread, so the emulator's actors stay thin adapters and every rule of a paper can be
 * replayed exactly in a unit test. This package holds what all kinds share: typed {@link
 * org.gpuemu.policies.PolicyParams}, the name-to-factory {@link org.gpuemu.policies.PolicyRegistry} behind
 * {@code GpuPolicies}, {@code CpuPolicies}, {@code MemoryPolicies} and {@code SpacePolicies} (COMBO's space
 * sharing, {@code org.gpuemu.policies.combo}), and the bounded {@link
 * org.gpuemu.policies.Violations} record each stateful policy reports from {@code checkInvariants()}.
 */
package org.gpuemu.policies;
