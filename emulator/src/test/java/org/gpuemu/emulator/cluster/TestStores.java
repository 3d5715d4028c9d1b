package org.gpuemu.emulator.cluster;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * TLS stores made by the JDK's keytool for a test, in the test's own folder: one EC key pair (P-256, valid 2 days)
 * with a self-signed certificate in {@code node.p12}, that certificate alone in {@code trust.p12}; and an unrelated
 * pair in {@code stranger.p12}, whose certificate no trust store holds. Nothing here is committed: every run makes
 * its own.
 */
record TestStores(Path key, Path trust, Path stranger, String password) {
  static TestStores make(Path dir) throws Exception {
    String pw = "test-only-" + Long.toHexString(System.nanoTime());
    Path key = dir.resolve("node.p12");
    Path trust = dir.resolve("trust.p12");
    Path stranger = dir.resolve("stranger.p12");
    Path cert = dir.resolve("node.crt");
    keytool(dir, "-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
        "CN=gpuemu-test-node", "-validity", "2", "-storetype", "PKCS12", "-keystore", key.toString(), "-storepass", pw,
        "-keypass", pw);
    keytool(dir, "-genkeypair", "-alias", "stranger", "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
        "CN=gpuemu-test-stranger", "-validity", "2", "-storetype", "PKCS12", "-keystore", stranger.toString(),
        "-storepass", pw, "-keypass", pw);
    keytool(dir, "-exportcert", "-alias", "node", "-keystore", key.toString(), "-storepass", pw, "-rfc", "-file",
        cert.toString());
    keytool(dir, "-importcert", "-noprompt", "-alias", "node", "-file", cert.toString(), "-storetype", "PKCS12",
        "-keystore", trust.toString(), "-storepass", pw);
    return new TestStores(key, trust, stranger, pw);
  }

  Tls tls() {
    return new Tls(key, password, trust, password);
  }

  private static void keytool(Path dir, String... args) throws Exception {
    List<String> command = new java.util.ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("keytool.log").toFile()).start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: see " + dir.resolve("keytool.log"));
    }
  }
}
