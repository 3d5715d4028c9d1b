package org.gpuemu.workloads;

/**
 * One step of a guest program, executed in order by a vCPU.
 *
 * <p>Asynchronous steps ({@link LaunchKernel}) return to the guest at once; synchronous ones
 * ({@link SyncCall}, {@link Flush}, {@link Malloc}) block the vCPU until the vGPU answers; {@link Present}
 * returns at once unless the guest's command buffer is full (Direct3D semantics, vgris.txt §2.2).
 */
public sealed interface Step {

  /** CPU work: needs a physical core for {@code nanos} of emulated time. */
  record CpuBurst(long nanos) implements Step {
    public CpuBurst {
      if (nanos <= 0) throw new IllegalArgumentException("nanos must be > 0: " + nanos);
    }
  }

  /** Asynchronous kernel launch or draw batch: queued on the vGPU's request ring, the vCPU goes on. */
  record LaunchKernel(KernelSpec kernel) implements Step {}

  /** Synchronous call (copy back, query): blocks the vCPU until its GPU work has completed. */
  record SyncCall(KernelSpec kernel) implements Step {}

  /**
   * End of a frame. {@code tail} is the last batch of the frame's commands, which the Direct3D runtime submits
   * with Present rather than when its command queue fills (vgris.txt §2.2); null when there is none. A policy
   * that holds Present back (VGRIS proportional share) therefore holds that batch back too. {@code cpuNanos} is
   * the CPU time of the call itself (the runtime's and the kernel driver's present path), which the guest pays on
   * its vCPU inside the call; 0 where the workload does not model it.
   */
  record Present(KernelSpec tail, long cpuNanos) implements Step {
    public Present {
      if (cpuNanos < 0) throw new IllegalArgumentException("cpuNanos must be >= 0: " + cpuNanos);
    }

    /** A Present whose own CPU time is not modelled. */
    public Present(KernelSpec tail) {
      this(tail, 0);
    }

    /** A Present that submits no commands of its own. */
    public Present() {
      this(null, 0);
    }
  }

  /** Pushes the guest's queued commands to the GPU and waits until they have been handed over. */
  record Flush() implements Step {}

  /** Allocates GPU memory; may fail when the VM's cap would be exceeded. */
  record Malloc(long bytes) implements Step {
    public Malloc {
      if (bytes <= 0) throw new IllegalArgumentException("bytes must be > 0: " + bytes);
    }
  }

  /** Frees GPU memory allocated earlier. */
  record Free(long bytes) implements Step {
    public Free {
      if (bytes <= 0) throw new IllegalArgumentException("bytes must be > 0: " + bytes);
    }
  }

  /** The guest sleeps: no CPU, no GPU. */
  record Sleep(long nanos) implements Step {
    public Sleep {
      if (nanos <= 0) throw new IllegalArgumentException("nanos must be > 0: " + nanos);
    }
  }
}
