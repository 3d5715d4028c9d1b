package org.gpuemu.policies.vgris;

import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * VGRIS's central scheduling controller as a {@link VgrisPolicy} sees it: which algorithm is in force and which
 * shares proportional sharing uses. The policy calls {@link #join} once per vGPU, {@link #leave} only for joined
 * ones, and passes {@link #secondEnded} only reports of joined vGPUs, each at most once.
 */
interface Controller {
  /** Every algorithm this controller may ever put in force. */
  Set<Algorithm> algorithms();

  /** The algorithm in force now. */
  Algorithm algorithm();

  /** A VM starts. */
  void join(VgpuParams vm);

  /**
   * A VM's configured share changes (a change during the run): throws IllegalArgumentException, naming the VMs,
   * when the shares would no longer fit (Shares#configured), and changes nothing then.
   */
  default void setShare(int vgpu, double share) {
    throw new IllegalArgumentException("the shares are computed by the policy, not configured");
  }

  /** A VM stopped. */
  void leave(int vgpu);

  /** The second that ended at {@code now}, reported by every running VM; true when the algorithm changed. */
  boolean secondEnded(long now, List<SecondReport> reports);

  /** Proportional shares of the present VMs by vGPU; empty when this controller never shares. */
  SortedMap<Integer, Double> shares();

  /** Every algorithm change so far, oldest first. */
  List<AlgorithmSwitch> switches();
}
