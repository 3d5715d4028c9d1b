package org.gpuemu.policies;

import java.util.Map;
import java.util.TreeMap;

/**
 * A policy's parameters, already validated and typed by the configuration loader: durations are emulated
 * nanoseconds ({@code Long}), counts are {@code Long}, fractions are {@code Double}, names are {@code String}.
 * Defaults come from {@code reference.conf}; a policy never sees a Typesafe {@code Config}.
 */
public record PolicyParams(Map<String, Object> values) {
  public PolicyParams {
    values = Map.copyOf(values);
  }

  /** Parameters from a map of typed values. */
  public static PolicyParams of(Map<String, Object> values) {
    return new PolicyParams(values);
  }

  /** No parameters, for policies that read none. */
  public static PolicyParams empty() {
    return new PolicyParams(Map.of());
  }

  /** A duration parameter in emulated nanoseconds. */
  public long nanos(String key) {
    return ((Number) require(key)).longValue();
  }

  /** An integer parameter. */
  public long count(String key) {
    return ((Number) require(key)).longValue();
  }

  /** A floating-point parameter. */
  public double real(String key) {
    return ((Number) require(key)).doubleValue();
  }

  /** A text parameter (a name or a mode). */
  public String text(String key) {
    return require(key).toString();
  }

  private Object require(String key) {
    Object v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException("policy parameter '" + key + "' missing; have " + new TreeMap<>(values).keySet());
    }
    return v;
  }
}
