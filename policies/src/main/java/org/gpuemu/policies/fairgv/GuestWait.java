package org.gpuemu.policies.fairgv;

/**
 * How a guest's vCPU waits for the response to a synchronous call (fairgv.txt §3.1, §3.2.2, §5.3): it polls the
 * response ring holding its core; it hybrid-spins (polls for a bounded time, then blocks until the response wakes
 * it: §3.2.3, "a vCPU of a GPU VM is blocked when the GPU VM does not have an item to process in the response ring");
 * or it spins for that bounded time and then yields the core, staying runnable, and spins again when the core comes
 * back (§5.4.3-5.4.4: Credit-hs's "waiting VM yields the CPU to other GPU VMs", "yielding operations occur
 * frequently"). The emulator's {@code sync-wait = poll | hybrid | yield} of a VM.
 */
public enum GuestWait {
  POLL,
  HYBRID,
  YIELD
}
