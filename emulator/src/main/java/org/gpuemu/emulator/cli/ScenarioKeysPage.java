package org.gpuemu.emulator.cli;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.KeyLists;
import org.gpuemu.emulator.config.ScenarioSchema;

/**
 * The scenario keys page ({@code docs/reference/scenario-keys.md}): every key of the emulator's reference.conf in its
 * order, with its kind, default and comment.
 *
 * <p>The key lists ({@code gpuemu.key-lists}: the keys of an expect row, a fault, a workload's phase, ...) are not
 * defaults: a value there only gives the key's kind, and an element of the list has no default for any key. So they
 * are rendered as what they are, apart from the default tables: each list under its own heading with its comment
 * (which says where the elements are), then one row per key with the key as an element writes it (bare, not the
 * reference.conf path), its kind, "required" or "optional" and its meaning. Whether a key is required is taken from
 * the convention reference.conf's comments follow: a comment starting with "required" (up to its colon, e.g.
 * "required with a tolerance") says when it must be set, and the rest of the comment is the meaning; any other key is
 * optional. The placeholder values are never printed, so that none reads as a default.
 */
final class ScenarioKeysPage {
  private ScenarioKeysPage() {}

  static String page() {
    URL url = referenceConf();
    List<String> lines = lines(url);
    Config gpuemu = ConfigFactory.parseURL(url).getConfig("gpuemu");
    StringBuilder md = new StringBuilder(ReferenceDocs.HEADER).append("# Scenario keys\n\n")
        .append("Every key of `emulator/src/main/resources/reference.conf`, in its order, with the kind a value must ")
        .append("have, its default and its comment there. A scenario file sets them under `scenario { ... }`; a key ")
        .append("that is not here is an error. Durations are emulated time with a unit (`16ms`), sizes have a size ")
        .append("unit (`64MiB`); a real default (`30.0`) takes any number, an integer one (`2`) a whole number. The ")
        .append("policies' own parameters are in [policies.md](policies.md). The key lists at the end ")
        .append("(`gpuemu.key-lists`) are not defaults: each lists the keys one element of a list may have (an expect ")
        .append("row, a fault, a workload's phase, ...), with the kind of each and whether it is required.\n");
    for (Map.Entry<String, ConfigValue> section : inSourceOrder(gpuemu.root())) {
      String name = section.getKey();
      String prefix = name.equals("scenario-defaults") ? "scenario" : "gpuemu." + name;
      md.append("\n## `").append(prefix).append("`\n\n");
      String about = comment(lines, section.getValue());
      if (!about.isEmpty()) md.append(about).append("\n\n");
      if (name.equals(KeyLists.SECTION)) {
        keyLists(md, lines, prefix, (ConfigObject) section.getValue());
        continue;
      }
      md.append("| key | kind | default | meaning |\n| --- | --- | --- | --- |\n");
      keys(md, lines, prefix, (ConfigObject) section.getValue());
    }
    return md.toString();
  }

  /**
   * Each key list under its own heading: the keys one element may have, with the kind of each, whether it is required
   * (its comment starts with "required", up to the colon) and its meaning; never the placeholder value.
   */
  private static void keyLists(StringBuilder md, List<String> lines, String prefix, ConfigObject lists) {
    for (Map.Entry<String, ConfigValue> list : inSourceOrder(lists)) {
      md.append("### `").append(prefix).append('.').append(list.getKey()).append("`\n\n");
      String about = comment(lines, list.getValue());
      if (!about.isEmpty()) md.append(about).append("\n\n");
      md.append("| key | kind | required | meaning |\n| --- | --- | --- | --- |\n");
      for (Map.Entry<String, ConfigValue> e : inSourceOrder((ConfigObject) list.getValue())) {
        String meaning = comment(lines, e.getValue());
        String required = "optional";
        int colon = meaning.indexOf(':');
        if (meaning.startsWith("required") && colon > 0) {
          required = meaning.substring(0, colon);
          meaning = meaning.substring(colon + 1).strip();
        }
        md.append("| `").append(e.getKey()).append("` | ").append(ScenarioSchema.kindName(e.getValue())).append(" | ")
            .append(required).append(" | ").append(ReferenceDocs.cell(meaning)).append(" |\n");
      }
      md.append('\n');
    }
  }

  private static void keys(StringBuilder md, List<String> lines, String prefix, ConfigObject object) {
    for (Map.Entry<String, ConfigValue> e : inSourceOrder(object)) {
      String path = prefix + "." + e.getKey();
      ConfigValue v = e.getValue();
      boolean nested = v.valueType() == ConfigValueType.OBJECT && !((ConfigObject) v).isEmpty();
      md.append("| `").append(path).append("` | ").append(ScenarioSchema.kindName(v)).append(" | ")
          .append(nested ? "" : "`" + defaultOf(lines, v) + "`").append(" | ").append(ReferenceDocs.cell(comment(lines, v)))
          .append(" |\n");
      if (nested) keys(md, lines, path, (ConfigObject) v);
    }
  }

  private static List<Map.Entry<String, ConfigValue>> inSourceOrder(ConfigObject object) {
    List<Map.Entry<String, ConfigValue>> entries = new ArrayList<>(object.entrySet());
    entries.sort(Comparator.comparingInt((Map.Entry<String, ConfigValue> e) -> e.getValue().origin().lineNumber())
        .thenComparing(Map.Entry::getKey));
    return entries;
  }

  /** The default as reference.conf writes it (a whole-number real keeps its decimal point). */
  private static String defaultOf(List<String> lines, ConfigValue v) {
    Object raw = v.unwrapped();
    return switch (v.valueType()) {
      case STRING -> raw.toString().isEmpty() ? "\"\"" : raw.toString();
      case NUMBER -> ScenarioSchema.kindName(v).equals("real") && !(raw instanceof Double)
          ? raw + ".0" : raw.toString();
      case OBJECT -> "{}";
      default -> v.render(com.typesafe.config.ConfigRenderOptions.concise());
    };
  }

  /**
   * The comment that documents a value: the comment lines just above its key (not continuing another key's
   * comment) and the comment after it on its line, with the comment lines below aligned under that one.
   */
  static String comment(List<String> lines, ConfigValue v) {
    int at = v.origin().lineNumber() - 1;
    if (at < 0 || at >= lines.size()) return "";
    List<String> above = new ArrayList<>();
    for (int i = at - 1; i >= 0; i--) {
      String t = lines.get(i).strip();
      if (!t.startsWith("#") || isContinuation(lines, i)) break;
      above.add(0, t.substring(1).strip());
    }
    List<String> parts = new ArrayList<>(above);
    int col = trailingHash(lines.get(at));
    if (col >= 0) {
      parts.add(lines.get(at).substring(col + 1).strip());
      for (int i = at + 1; i < lines.size() && commentColumn(lines.get(i)) == col; i++) {
        parts.add(lines.get(i).strip().substring(1).strip());
      }
    }
    return String.join(" ", parts).strip();
  }

  /** Whether comment line {@code i} continues the comment after a key on a line above it. */
  private static boolean isContinuation(List<String> lines, int i) {
    int col = commentColumn(lines.get(i));
    for (int j = i - 1; j >= 0; j--) {
      if (commentColumn(lines.get(j)) == col) continue;
      return trailingHash(lines.get(j)) == col;
    }
    return false;
  }

  /** The column of a comment-only line's {@code #}, or -1. */
  private static int commentColumn(String line) {
    String t = line.stripLeading();
    return t.startsWith("#") ? line.length() - t.length() : -1;
  }

  /** The column of the {@code #} that starts a comment after a value on the line (outside quotes), or -1. */
  private static int trailingHash(String line) {
    if (line.strip().startsWith("#")) return -1;
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char ch = line.charAt(i);
      if (ch == '"') quoted = !quoted;
      if (ch == '#' && !quoted) return i;
    }
    return -1;
  }

  /** The emulator's own reference.conf (the classpath may hold others, e.g. Pekko's). */
  private static URL referenceConf() {
    try {
      ClassLoader loader = ScenarioKeysPage.class.getClassLoader();
      for (URL url : java.util.Collections.list(loader.getResources("reference.conf"))) {
        if (ConfigFactory.parseURL(url).hasPath("gpuemu.scenario-defaults")) return url;
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    throw new IllegalStateException("no reference.conf with gpuemu.scenario-defaults on the classpath");
  }

  private static List<String> lines(URL url) {
    try (InputStream in = url.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
