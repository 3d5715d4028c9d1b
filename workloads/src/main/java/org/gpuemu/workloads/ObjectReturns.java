package org.gpuemu.workloads;

/**
 * What a guest's GPU driver does for a frame when its VM holds less high graphics memory than the frame touches
 * (gballoon.txt §3.1): "If the space for allocating an object is insufficient, the GPU driver creates an empty space
 * by returning the existing memory objects ... the same objects are frequently returned."
 *
 * <p>The mechanism, from the i915 driver the guests run (Linux drivers/gpu/drm/i915, {@code i915_gem_evict_something}
 * and {@code i915_vma_unbind}): to bind an object into a full global GTT the driver evicts objects from the
 * least-recently-used end; an object the GPU is still using is unbound only once the GPU is done with it, so the
 * driver waits for its vGPU's submitted work ({@link #waits}); every object it returns it must bind again when the
 * frame uses it, writing one GTT entry per 4 KiB page, and under gVirt each write to the guest's GTT is trapped and
 * mirrored into the vGPU's private GTT (§2.1: "the private GTT entries of the vGPU are synchronized every time each
 * vGPU modifies the physical GTT entries"). A frame whose working set is larger than what its VM holds by a deficit
 * D cycles at least D through the GTT each frame (least-recently-used eviction of a working set used in full every
 * frame): it returns {@code ceil(D / object)} objects, waits once for the GPU, and re-binds D / 4 KiB pages at
 * {@link #REBIND_NANOS_PER_PAGE} of CPU each.
 *
 * <p>Pure and deterministic.
 */
public final class ObjectReturns {
  /** The GTT maps 4 KiB pages, one entry each. */
  public static final long PAGE = 4096;
  /**
   * The guest CPU time to re-bind one page of a returned object: a trapped and mirrored GTT entry write. Fitted once,
   * jointly, to the two figures the paper gives for Valley's memory deficit: Figure 8 (Valley 4 % faster under
   * gVirt-1024 and 2 % faster under gBalloon than under gVirt-384) and Figure 6 (under gBalloon Valley's performance
   * "increased by up to 28 %" over gVirt-384); see {@code GballoonWorkloads}, the fit's record. The rows of those
   * figures are calibrated, not evidence.
   */
  public static final long REBIND_NANOS_PER_PAGE = 2_000;

  /** What one frame costs its guest for a deficit. */
  public record Cost(long objects, long pages, long rebindNanos, boolean waits) {
    /** No deficit: nothing returned, nothing to wait for. */
    public static final Cost NONE = new Cost(0, 0, 0, false);
  }

  private ObjectReturns() {}

  /**
   * A frame's cost with a working set of {@code demandBytes} in {@code heldBytes} of high graphics memory, objects of
   * {@code objectBytes}.
   */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes, long rebindNanosPerPage) {
    if (demandBytes < 0 || heldBytes < 0 || objectBytes <= 0 || rebindNanosPerPage < 0) {
      throw new IllegalArgumentException("demand and held >= 0, object > 0, rebind cost >= 0: " + demandBytes + ", "
          + heldBytes + ", " + objectBytes + ", " + rebindNanosPerPage);
    }
    long deficit = Math.max(0, demandBytes - heldBytes);
    if (deficit == 0) return Cost.NONE;
    long objects = (deficit + objectBytes - 1) / objectBytes;
    long pages = (deficit + PAGE - 1) / PAGE;
    return new Cost(objects, pages, pages * rebindNanosPerPage, true);
  }

  /** {@link #of(long, long, long, long)} at the fitted {@link #REBIND_NANOS_PER_PAGE}. */
  public static Cost of(long demandBytes, long heldBytes, long objectBytes) {
    return of(demandBytes, heldBytes, objectBytes, REBIND_NANOS_PER_PAGE);
  }
}
