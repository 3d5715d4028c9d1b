package org.gpuemu.policies.spi;

import java.util.List;

/**
 * The plugin interface for scheduling policies, found with {@link java.util.ServiceLoader}: a jar lists its
 * providers in {@code META-INF/services/org.gpuemu.policies.spi.PolicyProvider}, and the emulator loads it from its
 * class path or from {@code --plugins DIR}. The built-in policies register through this same interface (the
 * {@code policies} jar lists its own four providers there), so a plugin policy is selected, parameterised,
 * validated, listed and wired exactly like a built-in one. A provider needs a public no-argument constructor.
 * docs/guides/writing-a-policy-plugin.md walks through writing one.
 */
public interface PolicyProvider {
  /** Every policy this provider offers; names must be unique across all providers and kinds. */
  List<PolicySpec<?>> policies();
}
