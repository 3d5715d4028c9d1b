package org.gpuemu.policies.spi;

import java.net.URL;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.CodeSource;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.PolicyParams;

/**
 * Every policy the emulator can run: what the {@link PolicyProvider}s visible to one class loader offer, each with
 * where it came from. Names are unique across providers and kinds (a GPU and a space policy share the scenario key
 * {@code scheduler.gpu.policy}); a clash, a provider that fails to load, or a spec that is not well formed is a
 * {@link PluginException} naming the jar.
 */
public final class PolicyCatalog {
  /** A registered policy and the jar (or folder) its provider came from; "built-in" for the policies jar. */
  public record Entry(PolicySpec<?> spec, String origin) {}

  /** Something wrong with a provider or a policy it offers; the message names it and its origin. */
  public static final class PluginException extends RuntimeException {
    public PluginException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public static final String BUILT_IN = "built-in";

  private static volatile PolicyCatalog builtIn;

  private final SortedMap<String, Entry> entries;

  private PolicyCatalog(SortedMap<String, Entry> entries) {
    this.entries = Collections.unmodifiableSortedMap(entries);
  }

  /** The providers on the class path this class was loaded from (the built-in policies and any on {@code -cp}). */
  public static PolicyCatalog builtIn() {
    PolicyCatalog c = builtIn;
    if (c == null) {
      c = load(PolicyCatalog.class.getClassLoader());
      builtIn = c;
    }
    return c;
  }

  /** The providers {@code loader} sees (its parents' included). */
  public static PolicyCatalog load(ClassLoader loader) {
    SortedMap<String, Entry> entries = new TreeMap<>();
    Iterator<PolicyProvider> it = ServiceLoader.load(PolicyProvider.class, loader).iterator();
    while (true) {
      PolicyProvider provider;
      try {
        if (!it.hasNext()) break;
        provider = it.next();
      } catch (ServiceConfigurationError e) {
        Throwable cause = e.getCause() != null ? e.getCause() : e;
        throw new PluginException("a policy provider failed to load: " + e.getMessage()
            + (e.getCause() != null ? " (" + cause + ")" : ""), e);
      } catch (LinkageError e) {
        throw new PluginException("a policy provider failed to load: " + e, e);
      }
      String origin = originOf(provider.getClass());
      List<PolicySpec<?>> specs;
      try {
        specs = List.copyOf(provider.policies());
      } catch (RuntimeException | LinkageError e) {
        throw new PluginException(provider.getClass().getName() + " (" + origin + ") failed to list its policies: " + e, e);
      }
      for (PolicySpec<?> spec : specs) {
        Objects.requireNonNull(spec, () -> provider.getClass().getName() + " (" + origin + ") listed a null policy");
        Entry previous = entries.putIfAbsent(spec.name(), new Entry(spec, origin));
        if (previous != null) {
          throw new PluginException("policy name '" + spec.name() + "' is offered twice: by "
              + describeOrigin(previous) + " and by " + provider.getClass().getName() + " (" + origin + "); "
              + "a plugin must choose a name no other policy has", null);
        }
      }
    }
    return new PolicyCatalog(entries);
  }

  private static String describeOrigin(Entry e) {
    return "a " + e.spec().kind() + " (" + e.origin() + ")";
  }

  /** Where a class came from: "built-in" for the policies jar's own, else its jar's file name. */
  static String originOf(Class<?> type) {
    URL own = location(PolicyCatalog.class);
    URL theirs = location(type);
    if (theirs == null || theirs.equals(own)) return BUILT_IN;
    try {
      Path p = Paths.get(theirs.toURI());
      return p.getFileName() == null ? p.toString() : p.getFileName().toString();
    } catch (Exception e) {
      return theirs.toString();
    }
  }

  private static URL location(Class<?> type) {
    CodeSource source = type.getProtectionDomain().getCodeSource();
    return source == null ? null : source.getLocation();
  }

  /** Every registered policy by name. */
  public SortedMap<String, Entry> entries() {
    return entries;
  }

  /** The policies of one kind, by name. */
  public SortedMap<String, Entry> of(PolicyKind<?> kind) {
    SortedMap<String, Entry> out = new TreeMap<>();
    for (Map.Entry<String, Entry> e : entries.entrySet()) {
      if (e.getValue().spec().kind() == kind) out.put(e.getKey(), e.getValue());
    }
    return Collections.unmodifiableSortedMap(out);
  }

  /** The policy with this name, if any. */
  public java.util.Optional<Entry> find(String name) {
    return java.util.Optional.ofNullable(entries.get(name));
  }

  /** The spec of a policy of this kind; an unknown name fails listing the valid ones. */
  @SuppressWarnings("unchecked")
  public <P> PolicySpec<P> spec(PolicyKind<P> kind, String name) {
    Entry e = entries.get(name);
    if (e == null || e.spec().kind() != kind) {
      throw new IllegalArgumentException("unknown " + kind + " '" + name + "'; valid: " + String.join(", ", of(kind).keySet()));
    }
    return (PolicySpec<P>) e.spec();
  }

  /** A new policy of this kind from typed parameters, every one present (tests and tools; see {@link PolicySpec#create}). */
  public <P> P create(PolicyKind<P> kind, String name, PolicyParams params) {
    return spec(kind, name).create(params);
  }

  /** Names of one kind, sorted. */
  public List<String> names(PolicyKind<?> kind) {
    return List.copyOf(of(kind).keySet());
  }
}
