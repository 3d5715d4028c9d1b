package org.gpuemu.emulator.gpu;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuemu.emulator.gpu.RenderFrame.Held;
import org.gpuemu.policies.combo.BeKernel;

/**
 * The best-effort kernels the {@link SpaceScheduler} holds: queued with the policy, launched by it, or drained
 * unplanned after the end of the run (their completions count for nothing).
 */
final class BeKernels {
  private final Map<Long, BeKernel> queued = new HashMap<>();
  private final Map<Long, Held> held = new HashMap<>();
  private final Set<Long> drained = new HashSet<>();
  /** BE kernels the policy launched and that have not completed. */
  private final Set<Long> launched = new HashSet<>();
  /** Of those, the ones placed in the BE group. */
  private final Set<Long> inBeGroup = new HashSet<>();

  /** A BE request arrived: the kernel to queue with the policy. */
  BeKernel queued(Held h) {
    BeKernel k = new BeKernel(h.work().id(), h.work().vgpu(), h.kernel().type(), h.kernel().soloNanos(),
        h.kernel().memory());
    queued.put(k.id(), k);
    held.put(k.id(), h);
    return k;
  }

  /** The policy launched kernel {@code id}, into the BE group or not: the request to dispatch. */
  Held launched(long id, boolean beGroup) {
    launched.add(id);
    if (beGroup) inBeGroup.add(id);
    return held.get(id);
  }

  /** Whether a kernel launched into the BE group has not completed. */
  boolean anyInBeGroup() {
    return !inBeGroup.isEmpty();
  }

  /** Request {@code id} goes to the GPU unplanned, after the end. */
  void drained(long id) {
    drained.add(id);
  }

  /** A BE request completed: its kernel, or null when it was drained. */
  BeKernel completed(long id) {
    if (drained.remove(id)) return null;
    held.remove(id);
    launched.remove(id);
    inBeGroup.remove(id);
    return queued.remove(id);
  }

  /** At the end: every queued kernel the policy has not launched, in arrival order; none is queued any more. */
  List<Held> takeUnlaunched() {
    List<Long> ids = new ArrayList<>();
    for (Long id : held.keySet()) {
      if (!launched.contains(id)) ids.add(id);
    }
    ids.sort(Long::compare);
    List<Held> unlaunched = new ArrayList<>();
    for (Long id : ids) {
      unlaunched.add(held.remove(id));
      queued.remove(id);
    }
    return unlaunched;
  }
}
