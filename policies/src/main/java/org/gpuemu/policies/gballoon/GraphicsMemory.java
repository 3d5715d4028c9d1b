package org.gpuemu.policies.gballoon;

import org.gpuemu.policies.PolicyParams;

/**
 * Intel's global graphics memory as gVirt with gScale's sharing lays it out (gballoon.txt §2.1, Figure 1, Table 1).
 * Low global graphics memory is reachable by the CPU through the aperture; Dom0 keeps its own part, and every guest
 * gets the same {@code guestLowBytes} of it, so all guests share that range. High global graphics memory is reached
 * by the GPU only; what Dom0 does not keep is cut into slots that guests' vGPUs share.
 *
 * <p>Table 1's host: 4 GB in all, 256 MB low and 3,840 MB high; Dom0 keeps 384 MB high, so guests share 64 MB low and
 * 3,456 MB high, in 54 slots of 64 MB. The 256 − 64 − 64 = 128 MB of low memory that neither Dom0's 64 MB nor the
 * guests' range covers is not modelled (the paper does not say what uses it).
 *
 * @param lowBytes      low global graphics memory of the host
 * @param highBytes     high global graphics memory of the host
 * @param dom0HighBytes high memory Dom0 keeps for itself (never shared with guests)
 * @param guestLowBytes the low memory every guest gets, one range shared by all guests
 * @param slotBytes     the unit in which guests' high memory is handed out and shared
 */
public record GraphicsMemory(long lowBytes, long highBytes, long dom0HighBytes, long guestLowBytes, long slotBytes) {
  public static final long MIB = 1024L * 1024;
  /** A GTT entry maps one 4 KiB page, so a 64 MB slot has 16,384 entries. */
  public static final long PAGE_BYTES = 4096;
  /** gballoon.txt Table 1 and §4. */
  public static final GraphicsMemory TABLE_1 =
      new GraphicsMemory(256 * MIB, 3840 * MIB, 384 * MIB, 64 * MIB, 64 * MIB);

  /** Parameter: the host's low global graphics memory (bytes). */
  public static final String LOW_MEMORY = "low-memory";
  /** Parameter: the host's high global graphics memory (bytes). */
  public static final String HIGH_MEMORY = "high-memory";
  /** Parameter: high memory Dom0 keeps (bytes). */
  public static final String DOM0_HIGH_MEMORY = "dom0-high-memory";
  /** Parameter: the low memory all guests share (bytes). */
  public static final String GUEST_LOW_MEMORY = "guest-low-memory";
  /** Parameter: the slot size (bytes). */
  public static final String SLOT = "slot";

  public GraphicsMemory {
    if (slotBytes <= 0 || slotBytes % PAGE_BYTES != 0) {
      throw new IllegalArgumentException("slot must be a positive multiple of 4 KiB, got " + slotBytes);
    }
    if (highBytes <= 0 || highBytes % slotBytes != 0 || dom0HighBytes < 0 || dom0HighBytes % slotBytes != 0) {
      throw new IllegalArgumentException("high memory " + highBytes + " and Dom0's " + dom0HighBytes
          + " must be whole slots of " + slotBytes + " bytes");
    }
    if (dom0HighBytes >= highBytes) {
      throw new IllegalArgumentException("Dom0 keeps " + dom0HighBytes + " of " + highBytes
          + " bytes of high memory: none left for guests");
    }
    if (guestLowBytes <= 0 || guestLowBytes > lowBytes || guestLowBytes % PAGE_BYTES != 0) {
      throw new IllegalArgumentException("guests' low memory " + guestLowBytes
          + " must be a positive multiple of 4 KiB within the low memory " + lowBytes);
    }
  }

  /** The layout a slot policy's parameters describe. */
  public static GraphicsMemory from(PolicyParams params) {
    return new GraphicsMemory(params.count(LOW_MEMORY), params.count(HIGH_MEMORY), params.count(DOM0_HIGH_MEMORY),
        params.count(GUEST_LOW_MEMORY), params.count(SLOT));
  }

  /** Low plus high: Table 1's 4 GB. */
  public long totalBytes() {
    return lowBytes + highBytes;
  }

  /** The high memory guests share: Table 1's 3,456 MB. */
  public long guestHighBytes() {
    return highBytes - dom0HighBytes;
  }

  /** M of Algorithm 1: the slots guests share (54 with Table 1). */
  public int guestSlots() {
    return Math.toIntExact(guestHighBytes() / slotBytes);
  }

  /** GTT entries of one slot. */
  public long entriesPerSlot() {
    return slotBytes / PAGE_BYTES;
  }

  /** GTT entries of the guests' shared low range. */
  public long guestLowEntries() {
    return guestLowBytes / PAGE_BYTES;
  }

  /** Slots needed to hold {@code bytes} (rounded up). */
  public int slotsFor(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
    }
    return Math.toIntExact((bytes + slotBytes - 1) / slotBytes);
  }

  /** The bytes of {@code slots} slots. */
  public long bytesOf(int slots) {
    return slots * slotBytes;
  }
}
