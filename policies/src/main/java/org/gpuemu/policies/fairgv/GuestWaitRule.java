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

  /** The guests' mode a policy prescribes; empty for a policy that leaves it to the scenario. */
  static Optional<GuestWait> of(GpuPolicy policy) {
    return policy instanceof GuestWaitRule rule ? Optional.of(rule.guestWait()) : Optional.empty();
  }
}
