package org.gpuemu.workloads;

/**
 * What a guest's GPU driver does for a frame when its VM holds less high graphics memory than the frame touches
 * (gballoon.txt §3.1): "If the space for allocating an object is insufficient, the GPU driver creates an empty space
 * by returning the existing memory objects ... the same objects are frequently returned."
 *
 * <p>The mechanism, from the i915 driver the guests run (Linux drivers/gpu/drm/i915, {@code i915_gem_evict_something}
 * and {@code i915_vma_unbind}): to bind an object into a full global GTT the driver evicts objects from the
 * least-recently-used end, and an object the GPU is still using is unbound only once the GPU is done with it, so an
 * eviction waits for the vGPU's submitted work. A frame whose working set is larger than what its VM holds by a
 * deficit D cycles at least D through the GTT each frame (least-recently-used eviction of a working set used in full
 * every frame, the same objects returned again and again): it returns {@code ceil(D / object)} objects, in eviction
 * rounds of {@link #EVICTION_BYTES}, each of which waits for the GPU before the frame's next batch is built. Under
 * gVirt's round robin a wait with nothing queued gives up the vGPU's turn, so each round costs a turn: that is how
 * a lack of memory costs a shared Valley more than its own rendering.
 *
 * <p>Re-binding a returned object also rewrites its GTT entries (trapped and mirrored under gVirt, §2.1). That CPU
 * cost is not modelled: charged at 0.5 or 1 µs per 4 KiB page, with one wait per frame, it left Valley under
 * gVirt-384 3.4 times faster than under gVirt-1024 at both (the cost hides behind the round-robin waits) while
 * taking enough CPU from Figure 8's cg to put cg ahead under gVirt-1024 (1.03 and 1.11 times gVirt-384's rate), which
 * contradicts Figure 8's ordering (cg 19 % slower under gVirt-1024).
 *
 * <p>Pure and deterministic.
 */
public final class ObjectReturns {
  /**
   * The memory an eviction round frees before it waits again: the magnitude of the mechanism, fitted once, jointly, to
   * the figures the paper gives for Valley's memory deficit, before any other row was read: Figure 8 (Valley 4 %
   * faster under gVirt-1024 and 2 % faster under gBalloon than under gVirt-384, 8 Valley VMs among 15) and Figure 6
   * (Valley under gBalloon "increased by up to 28 %" over gVirt-384, Table 2's 15 VMs). The fit: 8, 16, 32, 64 and
   * 128 MiB, one seed each, the value with the least squared log error over those three ratios, 32 MiB (record:
   * docs/papers/gballoon.md). No size reaches Figure 8's ratios (the fitted one misses them); those rows are
   * calibrated, not evidence.
   */
  public static final long EVICTION_BYTES = 32L * 1024 * 1024;

  /** What one frame costs its guest for a deficit: the objects it returns and how many times it waits for the GPU. */
  public record Cost(long objects, int waits) {
    /** No deficit: nothing returned, nothing to wait for. */
    public static final Cost NONE = new Cost(0, 0);
  }

  private ObjectReturns() {}

  /**
   * A frame's cost with a working set of {@code demandBytes} in {@code heldBytes} of high graphics memory, objects of
   * {@code objectBytes}, eviction rounds of {@code evictionBytes}, and at most {@code batches} batches to wait
   * between (a round waits before a batch; a frame has no more waits than batches).
   */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes, long evictionBytes, int batches) {
    if (demandBytes < 0 || heldBytes < 0 || objectBytes <= 0 || evictionBytes <= 0 || batches <= 0) {
      throw new IllegalArgumentException("demand and held >= 0, object, eviction round and batches > 0: "
          + demandBytes + ", " + heldBytes + ", " + objectBytes + ", " + evictionBytes + ", " + batches);
    }
    long deficit = Math.max(0, demandBytes - heldBytes);
    if (deficit == 0) return Cost.NONE;
    long objects = (deficit + objectBytes - 1) / objectBytes;
    long rounds = (deficit + evictionBytes - 1) / evictionBytes;
    return new Cost(objects, (int) Math.min(batches, rounds));
  }

  /** {@link #of(long, long, long, long, int)} at the fitted {@link #EVICTION_BYTES}. */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes, int batches) {
    return of(demandBytes, heldBytes, objectBytes, EVICTION_BYTES, batches);
  }

  /**
   * Which of a frame's {@code batches} batches (0-based) is preceded by a wait, for {@code waits} waits spread
   * evenly, the first before batch 0.
   */
  public static boolean waitsBefore(int batch, int batches, int waits) {
    if (waits <= 0) return false;
    // batch b starts eviction round floor(b * waits / batches); a new round begins where that changes
    return batch == 0 || (long) batch * waits / batches != (long) (batch - 1) * waits / batches;
  }
}
