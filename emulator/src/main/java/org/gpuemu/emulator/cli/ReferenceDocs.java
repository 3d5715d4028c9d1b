package org.gpuemu.emulator.cli;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Expectations;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;
import picocli.CommandLine;

/**
 * The reference pages under {@code docs/reference/}, generated from the code so that they cannot drift from it: the
 * command line (each subcommand's picocli help), every key of {@code reference.conf} with its kind, default and
 * comment, every built-in policy from the registry, the keys of {@code summary.json} from its Jackson types, and
 * the papers' numbers the model is calibrated on, from the scenarios' {@code expect} blocks.
 * {@code ReferenceDocsTest} fails when a committed page differs from what this class makes; {@link #COMMAND}
 * regenerates them.
 */
public final class ReferenceDocs {
  /** What regenerates the pages, from the repository's root. */
  public static final String COMMAND = "mvn -q -DskipTests package && java -jar emulator/target/emulator.jar docs";

  /** Where the pages go, relative to the repository's root. */
  public static final String FOLDER = "docs/reference";

  static final String HEADER = "<!-- Generated from the code by `" + COMMAND + "`: do not edit. -->\n\n";
  private static final int HELP_WIDTH = 110;

  private ReferenceDocs() {}

  /**
   * Every page, by file name, in the order the index lists them.
   *
   * @param root the repository's root (the calibration page reads its {@code conf/scenarios})
   */
  public static Map<String, String> pages(Path root) {
    Map<String, String> pages = new LinkedHashMap<>();
    pages.put("README.md", index());
    pages.put("cli.md", cli());
    pages.put("scenario-keys.md", scenarioKeys());
    pages.put("policies.md", policies());
    pages.put("summary-json.md", summaryKeys());
    pages.put("calibration.md", calibration(root.resolve("conf").resolve("scenarios")));
    return pages;
  }

  private static String index() {
    return HEADER + """
        # Reference

        Generated from the code; `ReferenceDocsTest` fails when a page here is stale. To regenerate every page, from the
        repository's root:

        ```bash
        %s
        ```

        | page | what | generated from |
        | --- | --- | --- |
        | [cli.md](cli.md) | every command and option | the picocli commands (`emulator/.../cli`) |
        | [scenario-keys.md](scenario-keys.md) | every scenario key with its kind, default and meaning | `emulator/src/main/resources/reference.conf` |
        | [policies.md](policies.md) | every built-in policy: description, parameters with defaults, declared inputs | the policy registry (`PolicyCatalog`) |
        | [summary-json.md](summary-json.md) | every key `summary.json` can have, with its JSON type | the summary's types (`SummaryDoc`) |
        | [calibration.md](calibration.md) | every number of a paper the model takes as an input, with its source | the `expect` rows marked `input` in `conf/scenarios` |

        What the output keys mean, and `timeline.jsonl` and `soak.json`: [../guides/output-files.md](../guides/output-files.md).
        """.formatted(COMMAND);
  }

  // ---------------------------------------------------------------- the command line

  static String cli() {
    CommandLine root = new CommandLine(new Main());
    root.setUsageHelpWidth(HELP_WIDTH);
    StringBuilder md = new StringBuilder(HEADER).append("# Command line\n\n")
        .append("`java -jar emulator/target/emulator.jar COMMAND [OPTIONS]`. Exit status: 0 success, 1 a run broke an ")
        .append("invariant (or failed), 2 bad input (one line per problem, naming the file, key path or option).\n\n");
    List<CommandLine> all = new ArrayList<>();
    collect(root, all);
    for (CommandLine c : all) md.append("- [`").append(qualifiedName(c)).append("`](#").append(anchor(c)).append(")\n");
    for (CommandLine c : all) {
      md.append("\n## ").append(qualifiedName(c)).append("\n\n```text\n")
          .append(c.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
    }
    return md.toString();
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    into.add(c);
    c.getSubcommands().values().stream().distinct().forEach(sub -> collect(sub, into));
  }

  private static String qualifiedName(CommandLine c) {
    return c.getCommandSpec().qualifiedName(" ");
  }

  private static String anchor(CommandLine c) {
    return qualifiedName(c).toLowerCase(java.util.Locale.ROOT).replace(' ', '-');
  }

  // ---------------------------------------------------------------- scenario keys

  static String scenarioKeys() {
    return ScenarioKeysPage.page();
  }

  // ---------------------------------------------------------------- policies

  static String policies() {
    PolicyCatalog catalog = PolicyCatalog.builtIn();
    StringBuilder md = new StringBuilder(HEADER).append("# Policies\n\n")
        .append("Every built-in policy, from the registry plugins register with too (`list --params` prints the ")
        .append("same, with a plugin's). A scenario selects one with `policy = NAME` in the block each kind names, ")
        .append("and sets its parameters beside it, e.g. `scheduler.gpu { policy = round-robin, slice = 8ms }`.\n");
    for (PolicyKind<?> kind : PolicyKind.ALL) {
      String heading = capitalized(kind.label().replaceFirst("policy$", "policies"));
      md.append("\n## ").append(heading).append(" (`scenario.").append(kind.scenarioPath()).append(".policy`)\n");
      for (PolicyCatalog.Entry e : catalog.of(kind).values()) {
        PolicySpec<?> spec = e.spec();
        md.append("\n### `").append(spec.name()).append("`\n\n").append(spec.description()).append("\n\n");
        if (!spec.inputs().isEmpty()) {
          md.append("Declared inputs: ");
          md.append(String.join("; ", spec.inputs().stream().sorted()
              .map(i -> "`" + i.key() + "` (" + i.description() + ")").toList())).append(".\n\n");
        }
        if (spec.params().isEmpty()) {
          md.append("No parameters.\n");
          continue;
        }
        md.append("| parameter | kind | default | meaning |\n| --- | --- | --- | --- |\n");
        for (Param p : spec.params()) {
          md.append("| `").append(p.name()).append("` | ").append(p.type().name().toLowerCase(java.util.Locale.ROOT))
              .append(" | `").append(p.defaultValue()).append("` | ").append(cell(p.description())).append(" |\n");
        }
      }
    }
    md.append("\n## Declared inputs\n\nWhat a policy can ask the emulator for beyond what every policy of its kind ")
        .append("gets; the emulator wires exactly what a policy declares.\n\n")
        .append("| input | kind | what |\n| --- | --- | --- |\n");
    for (PolicyInput i : PolicyInput.values()) {
      md.append("| `").append(i.key()).append("` | ").append(i.kind().label()).append(" | ")
          .append(cell(i.description())).append(" |\n");
    }
    return md.toString();
  }

  private static String capitalized(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }

  // ---------------------------------------------------------------- summary.json

  static String summaryKeys() {
    ObjectMapper json = new ObjectMapper();
    StringBuilder md = new StringBuilder(HEADER).append("# summary.json keys\n\n")
        .append("Every key `summary.json` can have, from the Java types Jackson writes it from (`SummaryDoc`), in ")
        .append("their order. `<name>` stands for a key chosen by the run (a VM's, a host's, a benchmark's name), ")
        .append("`[]` for the elements of a list. Some keys are written only when the run has them (faults, ")
        .append("controls, many hosts, a cluster); each policy also writes its own figures under its name. What ")
        .append("each key means: [../guides/output-files.md](../guides/output-files.md).\n\n")
        .append("| key | JSON type |\n| --- | --- |\n");
    keys(md, json, json.constructType(SummaryDoc.class), "", new HashSet<>());
    return md.toString();
  }

  private static void keys(StringBuilder md, ObjectMapper json, JavaType type, String prefix, Set<Class<?>> open) {
    if (!open.add(type.getRawClass())) return;
    BeanDescription bean = json.getSerializationConfig().introspect(type);
    for (BeanPropertyDefinition p : bean.findProperties()) {
      AnnotatedMember member = p.getAccessor();
      if (member == null) continue;
      JavaType t = member.getType();
      if (member.hasAnnotation(JsonUnwrapped.class)) {
        keys(md, json, t, prefix, open);
        continue;
      }
      String path = prefix + p.getName();
      md.append("| `").append(path).append("` | ").append(jsonType(t)).append(" |\n");
      nested(md, json, t, path, open);
    }
    open.remove(type.getRawClass());
  }

  private static void nested(StringBuilder md, ObjectMapper json, JavaType t, String path, Set<Class<?>> open) {
    if (t.isMapLikeType()) {
      JavaType value = t.getContentType();
      if (isObject(value)) keys(md, json, value, path + ".<name>.", open);
    } else if (t.isCollectionLikeType() || t.isArrayType()) {
      JavaType element = t.getContentType();
      if (isObject(element)) keys(md, json, element, path + "[].", open);
    } else if (isObject(t)) {
      keys(md, json, t, path + ".", open);
    }
  }

  /** A type of the summary's own, written as a JSON object with its properties. */
  private static boolean isObject(JavaType t) {
    return t.getRawClass().isRecord();
  }

  private static String jsonType(JavaType t) {
    Class<?> c = t.getRawClass();
    if (t.isMapLikeType()) return "object";
    if (t.isCollectionLikeType() || t.isArrayType() || Collection.class.isAssignableFrom(c)) {
      return "list of " + jsonType(t.getContentType());
    }
    if (c == String.class) return "string";
    if (c == boolean.class || c == Boolean.class) return "boolean";
    if (c == int.class || c == long.class || c == Integer.class || c == Long.class) return "integer";
    if (c == double.class || c == float.class || Number.class.isAssignableFrom(c)) return "number";
    if (c.isRecord()) return "object";
    return "any";
  }

  // ---------------------------------------------------------------- calibration points

  /**
   * Every paper number the model is built from rather than judged on: the {@code expect} rows marked {@code input}
   * (a calibration point, compared but never counted as reproduced) and the figures whose numbers are constants of
   * the model ({@code unmeasured = input}), per paper, with the source each row gives.
   */
  static String calibration(Path scenarios) {
    PolicyCatalog catalog = PolicyCatalog.builtIn();
    Map<String, List<String>> byPaper = new java.util.TreeMap<>();
    List<Path> files;
    try (java.util.stream.Stream<Path> walk = Files.walk(scenarios)) {
      files = walk.filter(f -> f.toString().endsWith(".conf")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    for (Path file : files) {
      Expectations expect;
      try {
        expect = Expectations.read(file, catalog);
      } catch (ConfigProblems e) {
        throw new IllegalStateException(file + ": " + e.problems(), e);
      }
      String name = scenarios.relativize(file).toString().replace('\\', '/');
      for (Expectations.Row row : expect.rows()) {
        boolean constant = row.unmeasured() == Expectations.Unmeasured.INPUT;
        if (!row.input() && !constant) continue;
        String where = row.where().isEmpty() ? "" : " (" + String.join(", ", new java.util.TreeMap<>(row.where())
            .entrySet().stream().map(w -> w.getKey() + "=" + w.getValue()).toList()) + ")";
        String what = constant ? "constants of the model" : "`" + row.metric() + "`" + where;
        String paper = expect.paper() == null || expect.paper().isEmpty() ? name.split("/")[0] : expect.paper();
        byPaper.computeIfAbsent(paper, k -> new ArrayList<>()).add("| `" + name + "` | "
            + cell(row.figure()) + " | " + cell(what) + " | " + (constant ? "" : target(row.target())) + " | "
            + cell(row.source()) + " |");
      }
    }
    StringBuilder md = new StringBuilder(HEADER).append("# Calibration points\n\n")
        .append("The papers' numbers the model takes as inputs, per paper: a row marked `input` in a scenario's ")
        .append("`expect` block is a calibration point (the run is compared with it, and the row's verdict is ")
        .append("`input`, never `reproduced`); a figure whose numbers are constants of the model (the testbed, a ")
        .append("configuration) is `unmeasured = input`. Each gives its source. The policies' own parameters, with ")
        .append("the source of each default, are in [policies.md](policies.md); the workloads' figures are derived ")
        .append("in comments beside each number in `workloads/.../WorkloadCatalog.java`.\n");
    for (Map.Entry<String, List<String>> paper : byPaper.entrySet()) {
      md.append("\n## ").append(paper.getKey()).append("\n\n| file | figure | what | paper's value | source |\n")
          .append("| --- | --- | --- | --- | --- |\n");
      paper.getValue().forEach(r -> md.append(r).append('\n'));
    }
    return md.toString();
  }

  private static String target(Expectations.Target target) {
    if (target instanceof Expectations.Value v) {
      return v.low() == v.high() ? number(v.low()) : number(v.low()) + "–" + number(v.high());
    }
    if (target instanceof Expectations.Bound b) return (b.atLeast() ? "≥ " : "≤ ") + number(b.bound());
    return "";
  }

  private static String number(double x) {
    return x == Math.rint(x) && Math.abs(x) < 1e15 ? Long.toString((long) x) : Double.toString(x);
  }

  static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}
