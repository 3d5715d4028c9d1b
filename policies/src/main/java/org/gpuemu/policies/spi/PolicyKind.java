package org.gpuemu.policies.spi;

import java.util.List;
import java.util.Objects;
import org.gpuemu.policies.combo.SpacePolicy;
import org.gpuemu.policies.cpu.CpuPolicy;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.memory.MemoryPolicy;
import org.gpuemu.policies.placement.PlacementPolicy;

/**
 * What a policy decides, and so which interface it implements and which scenario key selects it.
 *
 * @param <P> the policy interface
 */
public final class PolicyKind<P> {
  /** GPU time sharing: which vGPU's queued request goes to the GPU next ({@code scenario.scheduler.gpu}). */
  public static final PolicyKind<GpuPolicy> GPU =
      new PolicyKind<>("gpu", "GPU policy", GpuPolicy.class, "scheduler.gpu");
  /**
   * GPU space sharing between one game and best-effort jobs (COMBO, PilotFish); selected at the same key as a GPU
   * policy, which is why every policy name is unique across kinds.
   */
  public static final PolicyKind<SpacePolicy> SPACE =
      new PolicyKind<>("space", "space policy", SpacePolicy.class, "scheduler.gpu");
  /** CPU scheduling of vCPUs on a physical core ({@code scenario.scheduler.cpu}). */
  public static final PolicyKind<CpuPolicy> CPU =
      new PolicyKind<>("cpu", "CPU policy", CpuPolicy.class, "scheduler.cpu");
  /** GPU memory: allocations, caps, graphics memory slots ({@code scenario.memory}). */
  public static final PolicyKind<MemoryPolicy> MEMORY =
      new PolicyKind<>("memory", "memory policy", MemoryPolicy.class, "memory");

  /** Which host and GPU a VM goes to when it arrives, in a scenario of many hosts ({@code scenario.placement}). */
  public static final PolicyKind<PlacementPolicy> PLACEMENT =
      new PolicyKind<>("placement", "placement policy", PlacementPolicy.class, "placement");

  /** Every kind, in the order {@code list} shows them. */
  public static final List<PolicyKind<?>> ALL = List.of(GPU, SPACE, CPU, MEMORY, PLACEMENT);

  private final String key;
  private final String label;
  private final Class<P> type;
  private final String scenarioPath;

  private PolicyKind(String key, String label, Class<P> type, String scenarioPath) {
    this.key = key;
    this.label = label;
    this.type = Objects.requireNonNull(type);
    this.scenarioPath = scenarioPath;
  }

  /** Short name, e.g. "gpu". */
  public String key() {
    return key;
  }

  /** How messages name one of these, e.g. "GPU policy". */
  public String label() {
    return label;
  }

  /** The interface every policy of this kind implements. */
  public Class<P> type() {
    return type;
  }

  /** The block under {@code scenario} that selects one with {@code policy = name}, e.g. "scheduler.gpu". */
  public String scenarioPath() {
    return scenarioPath;
  }

  @Override public String toString() {
    return label;
  }
}
