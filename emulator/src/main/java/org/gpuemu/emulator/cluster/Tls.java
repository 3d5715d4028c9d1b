package org.gpuemu.emulator.cluster;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigValueFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Collections;
import org.gpuemu.emulator.config.ConfigProblems;

/**
 * Artery over TLS between the nodes of a run (Pekko's {@code pekko.remote.artery.transport = tls-tcp} with its
 * {@code ConfigSSLEngineProvider}): this node's key store (its private key and certificate, shown to the others) and
 * its trust store (the certificates it accepts), with their passwords; mutual authentication on, as Pekko's default,
 * so a node accepts a connection only from a holder of a trusted certificate, in both directions. The key's password
 * is the key store's (keytool's default for PKCS12).
 */
public record Tls(Path keyStore, String keyStorePassword, Path trustStore, String trustStorePassword) {
  /** The environment variables the passwords are read from when a store is given by option. */
  public static final String KEY_STORE_PASSWORD_ENV = "GPUEMU_TLS_KEY_STORE_PASSWORD";
  public static final String TRUST_STORE_PASSWORD_ENV = "GPUEMU_TLS_TRUST_STORE_PASSWORD";

  @Override public String toString() { // never the passwords
    return "Tls[" + keyStore + ", " + trustStore + "]";
  }

  /**
   * The stores of a HOCON file with Pekko's own keys of {@code pekko.remote.artery.ssl.config-ssl-engine}
   * ({@code key-store}, {@code key-store-password}, {@code trust-store}, {@code trust-store-password}; substitutions
   * such as {@code ${GPUEMU_TLS_KEY_STORE_PASSWORD}} resolved from the environment); paths relative to the file.
   */
  public static Tls fromConfig(Path file) throws ConfigProblems {
    if (!Files.isRegularFile(file)) throw ConfigProblems.of("--tls-config " + file + ": no such file");
    Config c;
    try {
      c = ConfigFactory.parseFile(file.toFile()).resolveWith(ConfigFactory.systemEnvironment());
    } catch (ConfigException e) {
      throw ConfigProblems.of("--tls-config " + file + ": " + e.getMessage());
    }
    String[] keys = {"key-store", "key-store-password", "trust-store", "trust-store-password"};
    String[] v = new String[keys.length];
    for (int i = 0; i < keys.length; i++) {
      try {
        v[i] = c.getString(keys[i]);
      } catch (ConfigException e) {
        throw ConfigProblems.of("--tls-config " + file + ": " + keys[i] + ": expected a string (" + e.getMessage()
            + ")");
      }
    }
    Path dir = file.toAbsolutePath().getParent();
    return new Tls(dir.resolve(v[0]), v[1], dir.resolve(v[2]), v[3]);
  }

  /** Stores given by option, their passwords from {@link #KEY_STORE_PASSWORD_ENV} and {@link #TRUST_STORE_PASSWORD_ENV}. */
  public static Tls fromOptions(Path keyStore, Path trustStore, java.util.Map<String, String> env)
      throws ConfigProblems {
    if (keyStore == null || trustStore == null) {
      throw ConfigProblems.of("--tls-key-store and --tls-trust-store go together: a node shows its key and checks "
          + "the others' against its trust store");
    }
    String kp = env.get(KEY_STORE_PASSWORD_ENV);
    String tp = env.get(TRUST_STORE_PASSWORD_ENV);
    if (kp == null) throw ConfigProblems.of("--tls-key-store " + keyStore + ": set its password in " + KEY_STORE_PASSWORD_ENV);
    if (tp == null) throw ConfigProblems.of("--tls-trust-store " + trustStore + ": set its password in " + TRUST_STORE_PASSWORD_ENV);
    return new Tls(keyStore, kp, trustStore, tp);
  }

  /**
   * Loads both stores as Pekko will: bad input, one line naming the file, when one is missing, not a key store, its
   * password wrong, the key store holds no private key or the trust store no certificate.
   */
  public Tls checked() throws ConfigProblems {
    KeyStore keys = load("key store", keyStore, keyStorePassword);
    KeyStore trusted = load("trust store", trustStore, trustStorePassword);
    try {
      boolean hasKey = false;
      for (String alias : Collections.list(keys.aliases())) hasKey |= keys.isKeyEntry(alias);
      if (!hasKey) throw ConfigProblems.of("TLS key store " + keyStore + ": holds no private key");
      boolean hasCert = false;
      for (String alias : Collections.list(trusted.aliases())) hasCert |= trusted.isCertificateEntry(alias)
          || trusted.getCertificate(alias) != null;
      if (!hasCert) throw ConfigProblems.of("TLS trust store " + trustStore + ": holds no certificate");
      for (String alias : Collections.list(keys.aliases())) {
        if (keys.isKeyEntry(alias)) keys.getKey(alias, keyStorePassword.toCharArray());
      }
    } catch (GeneralSecurityException e) {
      throw ConfigProblems.of("TLS key store " + keyStore + ": its key cannot be read with the key store's password ("
          + e.getMessage() + ")");
    }
    return this;
  }

  private static KeyStore load(String what, Path file, String password) throws ConfigProblems {
    if (!Files.isRegularFile(file)) throw ConfigProblems.of("TLS " + what + " " + file + ": no such file");
    try {
      return KeyStore.getInstance(file.toFile(), password.toCharArray());
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      Throwable cause = e.getCause() instanceof java.security.UnrecoverableKeyException ? e.getCause() : e;
      throw ConfigProblems.of("TLS " + what + " " + file + ": cannot be read (" + cause.getMessage()
          + "; a wrong password, or not a PKCS12/JKS key store)");
    }
  }

  /** Pekko's settings for Artery over TLS with these stores. */
  Config config() {
    String p = "pekko.remote.artery.ssl.config-ssl-engine.";
    return ConfigFactory.empty()
        .withValue("pekko.remote.artery.transport", ConfigValueFactory.fromAnyRef("tls-tcp"))
        .withValue("pekko.remote.artery.ssl.ssl-engine-provider",
            ConfigValueFactory.fromAnyRef("org.apache.pekko.remote.artery.tcp.ConfigSSLEngineProvider"))
        .withValue(p + "key-store", ConfigValueFactory.fromAnyRef(keyStore.toAbsolutePath().toString()))
        .withValue(p + "key-store-password", ConfigValueFactory.fromAnyRef(keyStorePassword))
        .withValue(p + "key-password", ConfigValueFactory.fromAnyRef(keyStorePassword))
        .withValue(p + "trust-store", ConfigValueFactory.fromAnyRef(trustStore.toAbsolutePath().toString()))
        .withValue(p + "trust-store-password", ConfigValueFactory.fromAnyRef(trustStorePassword))
        .withValue(p + "require-mutual-authentication", ConfigValueFactory.fromAnyRef(true));
  }

  /**
   * Bad input when a node would listen on {@code host} beyond loopback without TLS: anyone on the network could then
   * join the cluster and send its nodes messages. {@code option} names the option that gave the address.
   */
  public static void requireBeyondLoopback(String option, String host, Tls tls) throws ConfigProblems {
    InetAddress a;
    try {
      a = InetAddress.getByName(host);
    } catch (UnknownHostException | SecurityException e) {
      throw ConfigProblems.of(option + " " + host + ": not an address of this machine (" + e.getMessage() + ")");
    }
    if (a.isAnyLocalAddress()) {
      throw ConfigProblems.of(option + " " + host + ": a node needs the address the others reach it at, not a "
          + "wildcard");
    }
    if (!a.isLoopbackAddress() && tls == null) {
      throw ConfigProblems.of(option + " " + host + ": beyond loopback the nodes talk over TLS only; give "
          + "--tls-key-store and --tls-trust-store (or --tls-config), docs/guides/many-machines.md");
    }
  }
}
