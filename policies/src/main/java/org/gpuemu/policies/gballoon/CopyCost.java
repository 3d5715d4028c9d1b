package org.gpuemu.policies.gballoon;

/**
 * The CPU time of copying GTT entries: a fixed time per 64 MB slot's 16,384 entries, proportional to the entries
 * written (the shared low range costs what its entries cost).
 *
 * <p>The paper gives no copy time, so it is derived from Figure 2 (Nexuiz in 6 and 9 VMs: "the performance at 1024
 * MB degraded by approximately 3.5 times compared with the performance at 384 MB"). With 384 MB (6 slots) 6 or 9
 * VMs need at most 54 slots, so no high slot is shared and a switch copies only the shared low range; with 1024 MB
 * (16 slots) nearly every slot is shared. The GPU runs each vGPU for gVirt's 16 ms slice and is idle while a switch
 * copies, so per round of n switches the FPS ratio is (n·16 ms + n·k_1024·c) / (n·16 ms + n·k_384·c) = 3.5, where
 * k is the slots (the low range counting as one) a switch copies in steady-state round robin and c the time per
 * slot: c = 2.5 × 16 ms / (k_1024 − 3.5·k_384). {@link SlotMap#place} puts 6 VMs of 16 slots so that a switch
 * copies k_1024 = 15 (14 high + low) and 9 VMs so that it copies 17 (16 + low); k_384 = 1 (low only). That gives
 * c = 3.5 ms and 3.0 ms; the default {@code copy-per-slot} of 3.2 ms (195 ns per GTT entry, the order of one
 * uncached MMIO write per entry) gives ratios of 3.33 and 3.67 ({@code CopyCostTest} replays both).
 *
 * @param nanosPerSlot CPU time to copy one slot's entries
 * @param memory       the layout (entries per slot and in the low range)
 */
public record CopyCost(long nanosPerSlot, GraphicsMemory memory) {
  /** Parameter: CPU time to copy one slot's GTT entries (nanos). */
  public static final String COPY_PER_SLOT = "copy-per-slot";

  public CopyCost {
    if (nanosPerSlot < 0) {
      throw new IllegalArgumentException("copy time per slot must be >= 0, got " + nanosPerSlot);
    }
  }

  /** The entries and CPU time of copying {@code set}. */
  public GttCopy price(CopySet set) {
    long entries = set.slots().size() * memory.entriesPerSlot() + (set.low() ? memory.guestLowEntries() : 0);
    return new GttCopy(set, entries, Math.round((double) entries * nanosPerSlot / memory.entriesPerSlot()));
  }
}
