package org.gpuemu.policies;

import java.util.Collections;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * Stable names mapped to policy factories, one registry per kind of policy (GPU, CPU, memory). Scenario files
 * select policies by these names, so a name, once published, is never reused for different behaviour.
 *
 * @param <P> the policy interface
 */
public final class PolicyRegistry<P> {
  private record Entry<P>(String description, Function<PolicyParams, ? extends P> factory) {}

  private final String kind;
  private final SortedMap<String, Entry<P>> entries;

  private PolicyRegistry(String kind, SortedMap<String, Entry<P>> entries) {
    this.kind = kind;
    this.entries = Collections.unmodifiableSortedMap(new TreeMap<>(entries));
  }

  /** Starts a registry whose errors call its entries {@code kind}, e.g. "GPU policy". */
  public static <P> Builder<P> builder(String kind) {
    return new Builder<>(kind);
  }

  /** A new policy built from its parameters; unknown names fail listing the valid ones. */
  public P create(String name, PolicyParams params) {
    return entry(name).factory().apply(params);
  }

  /** Every registered name, sorted. */
  public SortedSet<String> names() {
    return Collections.unmodifiableSortedSet(new TreeSet<>(entries.keySet()));
  }

  /** The one-line description of a registered policy. */
  public String describe(String name) {
    return entry(name).description();
  }

  private Entry<P> entry(String name) {
    Entry<P> entry = entries.get(name);
    if (entry == null) {
      throw new IllegalArgumentException(
          "unknown " + kind + " '" + name + "'; valid: " + String.join(", ", entries.keySet()));
    }
    return entry;
  }

  /** Collects entries; names must be unique. */
  public static final class Builder<P> {
    private final String kind;
    private final SortedMap<String, Entry<P>> entries = new TreeMap<>();

    private Builder(String kind) {
      this.kind = Objects.requireNonNull(kind);
    }

    /** Registers a policy under a stable name with a one-line description. */
    public Builder<P> add(String name, String description, Function<PolicyParams, ? extends P> factory) {
      if (entries.putIfAbsent(name, new Entry<>(description, Objects.requireNonNull(factory))) != null) {
        throw new IllegalStateException(kind + " '" + name + "' registered twice");
      }
      return this;
    }

    /** The finished, immutable registry. */
    public PolicyRegistry<P> build() {
      return new PolicyRegistry<>(kind, entries);
    }
  }
}
