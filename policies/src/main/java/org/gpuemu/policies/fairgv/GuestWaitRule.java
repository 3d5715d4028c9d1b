package org.gpuemu.policies.fairgv;

import java.util.Optional;
import org.gpuemu.policies.gpu.GpuPolicy;

/**
 * A GPU policy whose definition includes how the guests wait for synchronous calls. FairGV §5.3's two Credit
 * variants are one GPU scheduler and differ only there: {@code credit-poll} "adopts continuous polling when
 * checking the response ring whereas Credit-hs uses FairGV's hybrid spinning for the CPU scheduler". The registry
 * name therefore selects the guests' mode, and the emulator applies it as each VM's {@code sync-wait}: a scenario
 * that sets a VM's {@code sync-wait} against it contradicts the policy it names.
 */
public interface GuestWaitRule extends GpuPolicy {
  /** How every guest waits for a synchronous call under this policy. */
  GuestWait guestWait();

  /**
   * How long a hybrid-spinning guest spins before it yields its core, nanoseconds; 0: the policy leaves it to the VM's
   * {@code spin-limit}. FairGV uses one predefined spinning time for the vGPU and the guest (§3.2.2: "The same
   * predefined spinning time as that of the GPU scheduler is used in this hybrid spinning"), and Credit-hs "uses
   * FairGV's hybrid spinning for the CPU scheduler" (§5.3).
   */
  default long guestSpinNanos() {
    return 0;
  }

  /** The guests' mode a policy prescribes; empty for a policy that leaves it to the scenario. */
  static Optional<GuestWait> of(GpuPolicy policy) {
    return policy instanceof GuestWaitRule rule ? Optional.of(rule.guestWait()) : Optional.empty();
  }
}
