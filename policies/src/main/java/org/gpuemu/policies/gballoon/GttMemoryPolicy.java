package org.gpuemu.policies.gballoon;

import java.util.Optional;
import java.util.SortedMap;
import org.gpuemu.policies.memory.MemoryPolicy;

/**
 * The slot side of a GPU memory policy (gballoon.txt §2-3), called by the GpuMemory actor besides
 * {@link MemoryPolicy}'s allocations. Guests' allocations are of high global graphics memory; a VM's capacity is its
 * slot range ({@link #ranges}) times the slot size, and an allocation beyond it is granted in part, up to what fits
 * ({@code Granted.bytes} may be less than asked: the guest driver places what fits and returns objects for the rest),
 * or rejected with a reason when nothing fits. {@code addVm}'s cap is not read: a VM's high memory comes from the
 * policy (its GVT-g type, or gBalloon's initial size).
 *
 * <p>What the emulator feeds in:
 * <ul>
 *   <li>{@link #switchTo} at every vGPU context switch; the host must spend the returned CPU time copying on a host
 *       core (contending with vCPUs) before the incoming vGPU runs, and report that CPU time through
 *       {@link #copyTime} as it is spent.</li>
 *   <li>{@link #stealTime} for every vCPU's steal time as the CPU scheduler measures it.</li>
 *   <li>{@link #periodEnded} every {@link #periodNanos} from time zero.</li>
 * </ul>
 * Times are emulated nanoseconds; the policy never reads a clock.
 */
public interface GttMemoryPolicy extends MemoryPolicy {
  /** The global graphics memory layout. */
  GraphicsMemory memory();

  /** Every VM's high-memory slots now, by VM (for the timeline's slots over time). */
  SortedMap<Integer, SlotRange> ranges();

  /**
   * A GPU context switch to {@code vm}'s vGPU: what must be copied from its private GTT to the physical GTT and the
   * CPU time it takes; afterwards the physical GTT holds {@code vm}'s entries. A switch to the vGPU already loaded
   * copies only slots added to its range since.
   */
  GttCopy switchTo(int vm);

  /**
   * w_ij of Eq. 2: vCPU {@code vcpu} of {@code vm} waited {@code stealNanos} runnable for a physical CPU (as the CPU
   * scheduler measures it, whenever it does). Summed per vCPU over the period; its s_ij is the rest of the period.
   */
  void stealTime(int vm, int vcpu, long stealNanos);

  /** C of Eq. 1: a host CPU spent {@code cpuNanos} copying GTT entries. Summed over the period. */
  void copyTime(long cpuNanos);

  /** The profiling period t (gballoon.txt §3.2: 0.5 s). */
  long periodNanos();

  /**
   * The profiling period ending at {@code now}: W and R_copy over it ({@code hostCpus} is N of Eq. 1), f, and the
   * reductions that follow; the sums of {@link #stealTime} and {@link #copyTime} start again from zero.
   */
  Profile periodEnded(long now, int hostCpus);

  /**
   * A memory-pressure fault: the host withdraws the top {@code slots} of the guests' slots until
   * {@link #restore}; returns the holding, after eviction, of every VM that lost memory.
   */
  SortedMap<Integer, Long> withdraw(int slots);

  /** The memory-pressure fault heals: every slot is the guests' again. */
  void restore();

  /** Totals so far. */
  SlotCounters counters();

  /** The slot policy behind a memory policy, if it is one (the emulator's GpuMemory asks once). */
  static Optional<GttMemoryPolicy> of(MemoryPolicy policy) {
    return policy instanceof GttMemoryPolicy slots ? Optional.of(slots) : Optional.empty();
  }
}
