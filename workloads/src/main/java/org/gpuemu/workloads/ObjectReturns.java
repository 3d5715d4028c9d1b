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
 * <p>Re-binding a returned object rewrites its GTT entries, one per 4 KiB page; under gVirt the guest's GTT writes
 * are trapped and mirrored into its private GTT (gballoon.txt §2.1: "the private GTT entries of the vGPU are
 * synchronized every time each vGPU modifies the physical GTT entries"), so a round's re-binding costs the guest's
 * vCPU {@link #PAGE_NANOS} per page after its wait. That is what a lack of memory costs a VM alone (Figure 10), where
 * a wait finds its own GPU nearly done.
 *
 * <p>Pure and deterministic.
 */
public final class ObjectReturns {
  /**
   * The memory an eviction round frees before it waits again: the magnitude of the mechanism, fitted once, jointly
   * with {@link #PAGE_NANOS}, to the figures the paper gives for Valley's memory deficit, before any other row was
   * read: Figure 8 (Valley 4 % faster under gVirt-1024 and 2 % faster under gBalloon than under gVirt-384, 8 Valley
   * VMs among 15), Figure 6 (Valley under gBalloon "increased by up to 28 %" over gVirt-384, read as Figure 6's
   * Valley bar, 1.28, Table 2's 15 VMs) and Figure 10 (Valley alone 1.9 % slower under gBalloon than under gVirt-1024
   * over the benchmark, from the first scene's slot-by-slot growth). The fit: rounds of 16, 32 and 64 MiB and page
   * costs of 0 to 8 µs, one seed each (these files do not use the seed), the pair with the least squared log error
   * over those four ratios; that pair (64 MiB, 8 µs) was a corner of the grid, so the grid was extended once, by one
   * step beyond it each way (128 MiB, 16 µs), and not again: 128 MiB with 8 µs a page (record: docs/papers/
   * gballoon.md, "Valley's memory deficit: the fit"), on the new grid's edge in the round. The fitted pair misses
   * Figure 8's ratios; those rows are calibrated, not evidence.
   */
  public static final long EVICTION_BYTES = 128L * 1024 * 1024;
  /** A GTT page: one entry of the global GTT maps 4 KiB. */
  static final long PAGE = 4096;
  /**
   * What re-binding costs the guest per page returned (a trapped GTT write, mirrored by the mediator): fitted with
   * {@link #EVICTION_BYTES} (above), 8 µs. For scale, the copy at a context switch that Figure 2 calibrates costs
   * 3.76 ms per 64 MiB slot, 0.23 µs per entry in one bulk copy in Dom0; a trapped write takes a VM exit and the
   * mediator's emulation each.
   */
  public static final long PAGE_NANOS = 8_000;

  /** What one frame costs its guest for a deficit: the objects it returns and how many times it waits for the GPU. */
  public record Cost(long objects, int waits, long rebindNanos) {
    /** No deficit: nothing returned, nothing to wait for, nothing to re-bind. */
    public static final Cost NONE = new Cost(0, 0, 0);
  }

  private ObjectReturns() {}

  /**
   * A frame's cost with a working set of {@code demandBytes} in {@code heldBytes} of high graphics memory, objects of
   * {@code objectBytes}, eviction rounds of {@code evictionBytes}, and at most {@code batches} batches to wait
   * between (a round waits before a batch; a frame has no more waits than batches).
   */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes, long evictionBytes, long pageNanos,
      int batches) {
    if (demandBytes < 0 || heldBytes < 0 || objectBytes <= 0 || evictionBytes <= 0 || pageNanos < 0 || batches <= 0) {
      throw new IllegalArgumentException("demand and held >= 0, object, eviction round and batches > 0, page cost "
          + ">= 0: " + demandBytes + ", " + heldBytes + ", " + objectBytes + ", " + evictionBytes + ", " + batches
          + ", " + pageNanos);
    }
    long deficit = Math.max(0, demandBytes - heldBytes);
    if (deficit == 0) return Cost.NONE;
    long objects = (deficit + objectBytes - 1) / objectBytes;
    long rounds = (deficit + evictionBytes - 1) / evictionBytes;
    long pages = objects * objectBytes / PAGE;
    return new Cost(objects, (int) Math.min(batches, rounds), pages * pageNanos);
  }

  /** {@link #of(long, long, long, long, long, int)} at the fitted {@link #EVICTION_BYTES} and {@link #PAGE_NANOS}. */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes, int batches) {
    return of(demandBytes, heldBytes, objectBytes, EVICTION_BYTES, PAGE_NANOS, batches);
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
