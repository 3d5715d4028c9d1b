package org.gpuemu.policies.fairgv;

/**
 * How a guest's vCPU waits for the response to a synchronous call (fairgv.txt §3.1, §3.2.2, §5.3): it polls the
 * response ring holding its core, or it hybrid-spins (polls for a bounded time, then blocks and yields the core
 * until the response wakes it). The emulator's {@code sync-wait = poll | hybrid} of a VM.
 */
public enum GuestWait {
  POLL,
  HYBRID
}
