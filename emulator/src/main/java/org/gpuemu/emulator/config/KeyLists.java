package org.gpuemu.emulator.config;

import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import java.util.List;
import java.util.Set;

/**
 * The key lists of reference.conf ({@code gpuemu.key-lists}): per kind of list element (an expect row, a fault, a
 * workload's phase, ...) the keys it may have. Each reader checks an element's keys through these instead of a list
 * of its own; a key list's values only state the kinds, never defaults.
 */
public final class KeyLists {
  /** Where the key lists are, under reference.conf's {@code gpuemu}. */
  public static final String SECTION = "key-lists";

  private KeyLists() {}

  /** The key list {@code name} (e.g. {@code fault}) of reference.conf. */
  public static ConfigObject of(String name) {
    return ConfigFactory.defaultReference().getObject("gpuemu." + SECTION + "." + name);
  }

  /** The keys of key list {@code name}. */
  public static Set<String> keys(String name) {
    return Set.copyOf(of(name).keySet());
  }

  /** The keys of key list {@code name} in reference.conf's order. */
  static List<String> inOrder(String name) {
    return TypedValues.sortedByLine(of(name));
  }
}
