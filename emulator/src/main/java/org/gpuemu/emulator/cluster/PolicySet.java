package org.gpuemu.emulator.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * The policies a node can run: its catalog, and how the coordinator compares it with its own before placing anything
 * ({@link #described}): every policy's name and where it comes from, {@code built-in} or its plugin jar's file name
 * with the jar's SHA-256. Two nodes with the same plugin under the same name but another build differ: a run whose
 * nodes would run different code under one name is refused.
 */
public record PolicySet(PolicyCatalog catalog, SortedMap<String, String> described) {
  public PolicySet {
    described = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(described));
  }

  /** The built-in policies (and any on the class path). */
  public static PolicySet builtIn() {
    return of(PolicyCatalog.builtIn(), null);
  }

  /** {@code catalog}, its plugin jars read from {@code pluginDir} (null: no plugins). */
  public static PolicySet of(PolicyCatalog catalog, Path pluginDir) {
    Map<String, String> digests = new TreeMap<>();
    SortedMap<String, String> out = new TreeMap<>();
    for (Map.Entry<String, PolicyCatalog.Entry> e : catalog.entries().entrySet()) {
      String origin = e.getValue().origin();
      if (!origin.equals(PolicyCatalog.BUILT_IN) && pluginDir != null) {
        origin = origin + " sha256:" + digests.computeIfAbsent(origin, jar -> sha256(pluginDir.resolve(jar)));
      }
      out.put(e.getKey(), origin);
    }
    return new PolicySet(catalog, out);
  }

  /**
   * Why a node's set ({@code theirs}, as {@link #described}) differs from this one, in one line naming the node;
   * null when they are the same.
   */
  public String mismatch(String node, Map<String, String> theirs) {
    for (Map.Entry<String, String> e : described.entrySet()) {
      String other = theirs.get(e.getKey());
      if (other == null) {
        return "node " + node + ": has no policy '" + e.getKey() + "' (here: " + e.getValue() + "); start it with the "
            + "same --plugins as the coordinator";
      }
      if (!other.equals(e.getValue())) {
        return "node " + node + ": policy '" + e.getKey() + "' is " + other + " there, " + e.getValue() + " here; "
            + "every node needs the same plugin jars";
      }
    }
    for (Map.Entry<String, String> e : theirs.entrySet()) {
      if (!described.containsKey(e.getKey())) {
        return "node " + node + ": has policy '" + e.getKey() + "' (" + e.getValue() + ") that the coordinator has "
            + "not; start the coordinator with the same --plugins as its nodes";
      }
    }
    return null;
  }

  private static String sha256(Path jar) {
    try (InputStream in = Files.newInputStream(jar)) {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      byte[] buffer = new byte[1 << 16];
      for (int n; (n = in.read(buffer)) > 0; ) d.update(buffer, 0, n);
      return HexFormat.of().formatHex(d.digest());
    } catch (IOException e) {
      return "unreadable (" + e.getMessage() + ")";
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
