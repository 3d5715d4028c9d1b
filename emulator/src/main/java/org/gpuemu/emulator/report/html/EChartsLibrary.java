package org.gpuemu.emulator.report.html;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * The ECharts bundle of the pinned webjar (org.webjars.npm:echarts, version from the parent pom), read once from
 * the class path to be inlined into every report (and served by the live dashboard).
 */
public final class EChartsLibrary {
  private static final String VERSION = readVersion();
  private static String script;

  private EChartsLibrary() {}

  /** The pinned ECharts version, e.g. 5.3.1. */
  public static String version() {
    return VERSION;
  }

  private static String readVersion() {
    try (InputStream in = EChartsLibrary.class.getResourceAsStream("echarts.properties")) {
      if (in == null) throw new IllegalStateException("echarts.properties is missing from the class path");
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The minified bundle's text; it holds no {@code </script}, so it can sit inside a script element. */
  public static synchronized String script() {
    if (script != null) return script;
    String path = "/META-INF/resources/webjars/echarts/" + version() + "/dist/echarts.min.js";
    try (InputStream in = EChartsLibrary.class.getResourceAsStream(path)) {
      if (in == null) throw new IllegalStateException(path + " is missing from the class path (the echarts webjar)");
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      if (text.toLowerCase(java.util.Locale.ROOT).contains("</script")) {
        throw new IllegalStateException(path + " contains </script and cannot be inlined");
      }
      script = text;
      return script;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
