package org.gpuemu.policies.gballoon;

/**
 * The CPU time of copying GTT entries: a fixed time per 64 MB slot's 16,384 entries, proportional to the entries
 * written (the shared low range costs what its entries cost).
 *
 * <p>The paper gives no copy time, so it is calibrated on Figure 2 (Nexuiz in 6 and 9 VMs: "the performance at 1024
 * MB degraded by approximately 3.5 times compared with the performance at 384 MB"), an input of the model, never an
 * outcome. With 384 MB (6 slots) 6 or 9 VMs need at most 54 slots, so no high slot is shared and a switch copies
 * only the shared low range; with 1024 MB (16 slots) nearly every slot is shared ({@link SlotMap#place}: a switch
 * copies 14 high slots and the low range at 6 VMs, 16 and the low range at 9). The GPU runs each vGPU for gVirt's
 * 16 ms slice and idles while a switch copies, so the arithmetic of a round of n switches, (n·16 ms + n·k_1024·c) /
 * (n·16 ms + n·k_384·c) = 3.5, gives c = 3.5 ms at 6 VMs and 3.0 ms at 9 ({@code CopyCostTest}); the emulated
 * Nexuiz frames (their CPU work, batches and the copies' CPU time on Dom0's cores) give smaller ratios than that
 * arithmetic, so the default {@code copy-per-slot} is the value for which the emulated ratios at 6 and 9 VMs average
 * 3.5: running {@code nexuiz-3to15.conf} at 6 and 9 VMs, 60 s, gave averages of 3.185 (3.2 ms per
 * slot), 3.408 (3.6 ms) and 3.635 (4.0 ms); interpolated, 3.76 ms, which gave 3.341 and 3.656 (mean 3.499): 229 ns
 * per GTT entry, the order of one uncached MMIO write per entry. The ratios at 12 and 15 VMs, Figures 5-8 and 10 are
 * outputs.
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
