package org.gpuemu.policies.vmcg;

import java.util.ArrayDeque;
import java.util.Deque;
import org.gpuemu.policies.gpu.GpuWork;

/**
 * One VM's V-Channel (vmcg.txt §3, §5, Figure 4): its pending queue of CRBs in Dom0, whose length is req[i]
 * (GPUCRB_i), and its virtual ring buffer, which Algorithm 1 fills from the pending queue and from which the
 * engine takes CRBs into the shared physical ring while the VM owns it. Also holds what the credit model reads
 * (BW_i, MSIZE_i) and the VM's slice in the current polling period.
 */
final class VChannel {
  final Deque<GpuWork> pending = new ArrayDeque<>();
  final Deque<GpuWork> ring = new ArrayDeque<>();
  double bwShare;
  double memoryShare;
  long sliceNanos;
  /** The VM's priority (its weight): it scales the VM's Eq. 1-2 part and its sends per turn. */
  int priority;

  VChannel(long sliceNanos, int priority) {
    this.sliceNanos = sliceNanos;
    this.priority = priority;
  }

  /** Step 27: the first {@code n} CRBs of the pending queue (fewer if it holds fewer) go to the virtual ring. */
  void send(int n) {
    for (int i = 0; i < n && !pending.isEmpty(); i++) {
      ring.addLast(pending.removeFirst());
    }
  }

  /** Whether the VM has CRBs anywhere in its channel. */
  boolean hasCrbs() {
    return !pending.isEmpty() || !ring.isEmpty();
  }

  CreditModel.Demand demand() {
    return new CreditModel.Demand(bwShare, memoryShare, pending.size(), priority);
  }
}
