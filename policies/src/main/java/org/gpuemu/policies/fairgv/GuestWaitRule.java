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
   * How long a waiting guest spins on its response ring before it blocks ({@link GuestWait#HYBRID}) or yields
   * ({@link GuestWait#YIELD}), in nanos; a polling guest ({@link GuestWait#POLL}) spins without limit and ignores it.
   * fairgv.txt §3.2.2 gives the guests no time of their own: "When a GPU VM does not have a new message in the
   * response ring because its vGPU is not online, the VM voluntarily releases the CPU instead of continuously polling
   * the ring. The same predefined spinning time as that of the GPU scheduler is used in this hybrid spinning." So it
   * is the policy's {@code idle-spin} (the vGPU's 100K spins, about 1 ms), and §5.3's Credit-hs "uses FairGV's hybrid
   * spinning for the CPU scheduler", the same time.
   */
  long guestSpinNanos();

  /** The guests' mode a policy prescribes; empty for a policy that leaves it to the scenario. */
  static Optional<GuestWait> of(GpuPolicy policy) {
    return policy instanceof GuestWaitRule rule ? Optional.of(rule.guestWait()) : Optional.empty();
  }
}
