package org.gpuemu.policies.spi;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.combo.SpacePolicy;
import org.gpuemu.policies.cpu.CpuPolicy;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.gpuemu.policies.memory.MemoryPolicy;
import org.gpuemu.policies.placement.PlacementPolicy;

/**
 * One policy a {@link PolicyProvider} offers: its kind, stable name, one-line description, parameters with their
 * defaults, the inputs it needs from the emulator, and how to build one from its parameters. Built with the
 * kind's factory and {@code param}/{@code needs}, e.g.
 *
 * <pre>{@code
 * PolicySpec.gpu("lottery", "picks a random vGPU's request, tickets by weight", LotteryPolicy::new)
 *     .param(Param.integer("max-inflight", 2, "depth of the hardware queue"))
 *     .needs(PolicyInput.CPU_TIME)
 * }</pre>
 *
 * @param <P> the policy interface of its kind
 */
public record PolicySpec<P>(PolicyKind<P> kind, String name, String description, List<Param> params,
    Set<PolicyInput> inputs, Function<PolicyParams, ? extends P> factory) {

  public PolicySpec {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(factory, "factory");
    if (name == null || !name.matches("[a-z][a-z0-9]*(-[a-z0-9]+)*")) {
      throw new IllegalArgumentException("policy name '" + name + "' must be lower-case words joined by '-'");
    }
    if (description == null || description.isBlank() || description.contains("\n")) {
      throw new IllegalArgumentException("policy '" + name + "': the description must be one non-empty line");
    }
    params = List.copyOf(params);
    Set<String> seen = new HashSet<>();
    for (Param p : params) {
      if (!seen.add(p.name())) throw new IllegalArgumentException("policy '" + name + "': parameter '" + p.name() + "' twice");
    }
    inputs = inputs.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(inputs));
    for (PolicyInput in : inputs) {
      if (in.kind() != kind) {
        throw new IllegalArgumentException("policy '" + name + "': input " + in.key() + " is for a " + in.kind()
            + ", not a " + kind);
      }
    }
  }

  /** A GPU time-sharing policy without parameters or inputs yet. */
  public static PolicySpec<GpuPolicy> gpu(String name, String description,
      Function<PolicyParams, ? extends GpuPolicy> factory) {
    return new PolicySpec<>(PolicyKind.GPU, name, description, List.of(), Set.of(), factory);
  }

  /** A GPU space-sharing policy. */
  public static PolicySpec<SpacePolicy> space(String name, String description,
      Function<PolicyParams, ? extends SpacePolicy> factory) {
    return new PolicySpec<>(PolicyKind.SPACE, name, description, List.of(), Set.of(), factory);
  }

  /** A CPU policy. */
  public static PolicySpec<CpuPolicy> cpu(String name, String description,
      Function<PolicyParams, ? extends CpuPolicy> factory) {
    return new PolicySpec<>(PolicyKind.CPU, name, description, List.of(), Set.of(), factory);
  }

  /** A GPU memory policy. */
  public static PolicySpec<MemoryPolicy> memory(String name, String description,
      Function<PolicyParams, ? extends MemoryPolicy> factory) {
    return new PolicySpec<>(PolicyKind.MEMORY, name, description, List.of(), Set.of(), factory);
  }

  /** A placement policy (which host and GPU a VM goes to). */
  public static PolicySpec<PlacementPolicy> placement(String name, String description,
      Function<PolicyParams, ? extends PlacementPolicy> factory) {
    return new PolicySpec<>(PolicyKind.PLACEMENT, name, description, List.of(), Set.of(), factory);
  }

  /** This spec with more parameters. */
  public PolicySpec<P> param(Param... more) {
    return params(List.of(more));
  }

  /** This spec with more parameters. */
  public PolicySpec<P> params(List<Param> more) {
    List<Param> all = new ArrayList<>(params);
    all.addAll(more);
    return new PolicySpec<>(kind, name, description, all, inputs, factory);
  }

  /** This spec with more inputs. */
  public PolicySpec<P> needs(PolicyInput... more) {
    Set<PolicyInput> all = inputs.isEmpty() ? EnumSet.noneOf(PolicyInput.class) : EnumSet.copyOf(inputs);
    all.addAll(List.of(more));
    return new PolicySpec<>(kind, name, description, params, all, factory);
  }

  /** Every parameter at its default, typed as the policy reads it ({@link Param#typedDefault}). */
  public PolicyParams defaults() {
    java.util.Map<String, Object> values = new java.util.LinkedHashMap<>();
    for (Param p : params) values.put(p.name(), p.typedDefault());
    return PolicyParams.of(values);
  }

  /** Whether it declared this input. */
  public boolean declares(PolicyInput input) {
    return inputs.contains(input);
  }

  /**
   * A new policy from its parameters (already typed, every parameter present). Throws {@link
   * IllegalArgumentException} when the policy rejects them, and {@link IllegalStateException} when what it built
   * contradicts this spec (wrong interface, another name, an input declared but not implemented or implemented but
   * not declared).
   */
  public P create(PolicyParams values) {
    Object built = factory.apply(values);
    if (!kind.type().isInstance(built)) {
      throw new IllegalStateException("policy '" + name + "' built a " + (built == null ? "null" : built.getClass().getName())
          + ", not a " + kind.type().getName());
    }
    String builtName = nameOf(built);
    if (builtName != null && !builtName.equals(name)) {
      throw new IllegalStateException("policy '" + name + "' built a policy calling itself '" + builtName + "'");
    }
    for (PolicyInput in : PolicyInput.values()) {
      if (in.kind() != kind) continue;
      boolean implemented = in.capability().isInstance(built);
      if (implemented != inputs.contains(in)) {
        throw new IllegalStateException("policy '" + name + "' " + (implemented
            ? "implements " + in.capability().getSimpleName() + " but does not declare needs(PolicyInput." + in.name() + ")"
            : "declares input " + in.name() + " but does not implement " + in.capability().getName()));
      }
    }
    return kind.type().cast(built);
  }

  private static String nameOf(Object policy) {
    if (policy instanceof GpuPolicy g) return g.name();
    if (policy instanceof SpacePolicy s) return s.name();
    if (policy instanceof CpuPolicy c) return c.name();
    if (policy instanceof MemoryPolicy m) return m.name();
    if (policy instanceof PlacementPolicy p) return p.name();
    return null;
  }
}
