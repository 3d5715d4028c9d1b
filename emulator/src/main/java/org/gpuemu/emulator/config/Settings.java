package org.gpuemu.emulator.config;

import java.util.List;
import org.gpuemu.policies.PolicyParams;

/** Typed, validated settings of one run. All durations are emulated nanoseconds. */
public final class Settings {
  private Settings() {}

  /** A whole scenario, after command-line overrides. */
  public record Scenario(String name, String description, String file, double timeScale, long durationNanos,
      long seed, Host host, Gpu gpu, PolicyChoice gpuPolicy, PolicyChoice cpuPolicy, PolicyChoice memoryPolicy,
      Fidelity fidelity, long metricsPeriodNanos, List<Vm> vms) {
    public Scenario {
      vms = List.copyOf(vms);
    }
  }

  public record Host(int cores) {}

  public record Gpu(int sms, long memoryBytes, long contextSwitchNanos, int maxConcurrentKernels) {}

  /** A policy picked by registry name, with its parameters (defaults merged). */
  public record PolicyChoice(String name, PolicyParams params) {}

  public record Fidelity(double latenessThreshold, long livenessTimeoutNanos) {}

  /** How a vCPU waits for a synchronous GPU call. */
  public enum SyncWait { POLL, HYBRID }

  /**
   * One VM.
   *
   * @param index dense index in file order; also its vGPU's index
   * @param cores the physical core of each vCPU (already resolved from pinning)
   * @param driverQueue requests the driver's command buffer holds for this VM at once
   * @param share the VM's GPU share for proportional-share policies; NaN when the scenario sets none
   * @param stopAfterNanos how long after its start the VM's program stops; {@link Long#MAX_VALUE}: never
   */
  public record Vm(int index, String name, String workload, int weight, List<Integer> cores, long memoryCapBytes,
      SyncWait syncWait, long spinLimitNanos, int commandBuffer, int driverQueue, long startDelayNanos,
      long stopAfterNanos, double slaFps, double share) {
    public Vm {
      cores = List.copyOf(cores);
    }

    public int vcpus() {
      return cores.size();
    }
  }
}
