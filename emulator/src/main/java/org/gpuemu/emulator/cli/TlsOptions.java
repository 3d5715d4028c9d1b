package org.gpuemu.emulator.cli;

import java.nio.file.Path;
import org.gpuemu.emulator.cluster.Tls;
import org.gpuemu.emulator.config.ConfigProblems;
import picocli.CommandLine.Option;

/**
 * Artery over TLS between the nodes of a cluster run (a picocli mixin of {@code run} and {@code node}): the stores by
 * option, their passwords from the environment, or a file with Pekko's own keys. Required beyond loopback.
 */
final class TlsOptions {
  @Option(names = "--tls-key-store", paramLabel = "FILE", description = "this node's private key and certificate "
      + "(PKCS12 or JKS; password in $" + Tls.KEY_STORE_PASSWORD_ENV + ")")
  Path keyStore;

  @Option(names = "--tls-trust-store", paramLabel = "FILE", description = "the certificates this node accepts from "
      + "the others (password in $" + Tls.TRUST_STORE_PASSWORD_ENV + ")")
  Path trustStore;

  @Option(names = "--tls-config", paramLabel = "FILE", description = "instead: a HOCON file with key-store, "
      + "key-store-password, trust-store, trust-store-password (Pekko's config-ssl-engine keys)")
  Path config;

  /** The TLS settings given, their stores loaded once to check them; null when none was given. */
  Tls tls() throws ConfigProblems {
    if (config != null) {
      if (keyStore != null || trustStore != null) {
        throw ConfigProblems.of("--tls-config: give the stores either in the file or by --tls-key-store and "
            + "--tls-trust-store, not both");
      }
      return Tls.fromConfig(config).checked();
    }
    if (keyStore == null && trustStore == null) return null;
    return Tls.fromOptions(keyStore, trustStore, System.getenv()).checked();
  }

  /** The options that give a child JVM the same TLS settings (its passwords come through the environment). */
  java.util.List<String> args() {
    java.util.List<String> a = new java.util.ArrayList<>();
    if (config != null) a.addAll(java.util.List.of("--tls-config", config.toAbsolutePath().toString()));
    if (keyStore != null) a.addAll(java.util.List.of("--tls-key-store", keyStore.toAbsolutePath().toString()));
    if (trustStore != null) a.addAll(java.util.List.of("--tls-trust-store", trustStore.toAbsolutePath().toString()));
    return a;
  }
}
