package org.gpuemu.emulator.cli;

import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.policies.spi.PolicyCatalog;

/**
 * {@code --plugins DIR}: every jar in DIR on a class loader over the emulator's own, and the policies its
 * providers offer together with the built-in ones (docs/guides/writing-a-policy-plugin.md). Without the option, the
 * policies on the class path (built-in, and any jar added with {@code -cp}). Every failure is bad input (exit 2)
 * with one line naming the folder or jar.
 */
final class Plugins {
  private Plugins() {}

  /** The catalog for {@code --plugins dir}; {@code dir} null: the class path's. */
  static PolicyCatalog catalog(Path dir) throws ConfigProblems {
    if (dir == null) {
      try {
        return PolicyCatalog.builtIn();
      } catch (PolicyCatalog.PluginException e) {
        throw ConfigProblems.of("class path: " + e.getMessage());
      }
    }
    if (!Files.isDirectory(dir)) throw ConfigProblems.of("--plugins " + dir + ": no such folder");
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path p : files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList()) {
        jars.add(p.toUri().toURL());
      }
    } catch (MalformedURLException e) {
      throw ConfigProblems.of("--plugins " + dir + ": " + e.getMessage());
    } catch (IOException e) {
      throw ConfigProblems.of("--plugins " + dir + ": cannot list the folder (" + e.getMessage() + ")");
    }
    if (jars.isEmpty()) throw ConfigProblems.of("--plugins " + dir + ": no .jar file in the folder");
    // never closed: the policies' classes are used until the JVM exits
    URLClassLoader loader = new URLClassLoader(jars.toArray(URL[]::new), Plugins.class.getClassLoader());
    try {
      return PolicyCatalog.load(loader);
    } catch (PolicyCatalog.PluginException e) {
      throw ConfigProblems.of("--plugins " + dir + ": " + e.getMessage());
    }
  }
}
