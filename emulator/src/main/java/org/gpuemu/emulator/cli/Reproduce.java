package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.reproduce.Report;
import org.gpuemu.emulator.reproduce.Reproduction;
import org.gpuemu.policies.spi.PolicyCatalog;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reproduce}: every scenario file with an {@code expect} block, under the policies its figure compares and
 * several seeds, judged against the paper's numbers into {@code reproduction.json} and {@code reproduction.md}
 * (docs/guides/reproducing.md). Exit 0, 1 when a run broke an invariant or failed, 2 on bad input.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true,
    description = "Run every figure's scenario that declares the paper's numbers (scenario.expect) and judge each "
        + "claim: reproduced, same direction, contradicts, unfaithful, not run; input, no number and not modelled "
        + "for the paper's inputs and the figures no run gives a number for.")
final class Reproduce implements Callable<Integer> {
  /** The time scale {@code reproduce headline} runs at unless --scale says otherwise. */
  static final double HEADLINE_SCALE = 1000;

  @Parameters(arity = "0..*", paramLabel = "PAPER",
      description = "vgris, fairgv, vmcg, combo, gballoon or all (default: all); or headline: every paper's abstract "
          + "claims alone (the rows tagged headline, only the runs they read, in fast forward unless --scale), into "
          + "headline.json and headline.md")
  List<String> papers = new ArrayList<>();

  @Option(names = "--quick", description = "one seed, each run cut to 2 wall seconds at its time scale or to the "
      + "file's expect.quick-duration (CI: a few minutes)")
  boolean quick;

  @Option(names = "--seeds", paramLabel = "N", description = "runs per policy and figure, seeds file+0..N-1 "
      + "(default: 3, 1 with --quick)")
  Integer seeds;

  @Option(names = "--scale", paramLabel = "X", description = "run every file at time scale X instead of its own "
      + "(figures do not depend on it under the conservative order: 1000 runs as fast as the machine goes; "
      + "--quick then cuts nothing below the file's expect.duration)")
  Double scale;

  @Option(names = "--out", description = "output folder (default: out/reproduce-<timestamp>)")
  Path out;

  @Option(names = "--conf", paramLabel = "DIR", description = "folder of scenario files (default: conf/scenarios)")
  Path conf = Paths.get("conf", "scenarios");

  @Option(names = "--warm-up", negatable = true, defaultValue = "true", description = "a throw-away second of "
      + "each paper's first run warms the JVM up (default: on)")
  boolean warmUp;

  @Option(names = "--render", paramLabel = "JSON", description = "only print the Markdown tables of this "
      + "reproduction.json (what goes into the docs) and exit")
  Path render;

  @Option(names = "--rejudge", description = "run nothing: judge again from the summaries a run with the same papers, "
      + "--seeds and --quick left in --out, and rewrite its reproduction.json and reproduction.md (when only an expect "
      + "row or a verdict rule changed)")
  boolean rejudge;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    if (render != null) return render(stdout, err);
    boolean headline = papers.contains("headline");
    List<String> chosen = chosenPapers(headline, err);
    if (chosen == null) return Main.BAD_INPUT;
    int n = seeds != null ? seeds : quick ? 1 : 3;
    String bad = badOption(n);
    if (bad != null) {
      err.println(bad);
      return Main.BAD_INPUT;
    }
    Path dir = out != null ? out : Main.timestamped("reproduce-");
    // the headline runs in fast forward unless told otherwise: a run's figures do not depend on the scale
    Double runScale = scale == null && headline ? Double.valueOf(HEADLINE_SCALE) : scale;
    Reproduction.Options options = new Reproduction.Options(conf, chosen, quick, n, dir, PolicyCatalog.builtIn(),
        warmUp, runScale);
    List<Reproduction.Figure> figures = plan(options, headline, err);
    if (figures == null) return Main.BAD_INPUT;
    if (!Main.createFolder(dir, err)) return Main.BAD_INPUT;
    Main.configureLogging(dir, false);
    long start = System.nanoTime();
    Double wall = null;
    String ran = null;
    Reproduction.Outcome outcome;
    if (rejudge) {
      outcome = Reproduction.rejudge(figures, options, stdout);
      // the wall time is the run's, not the judging's
      try {
        Map<String, Object> earlier = Report.read(dir.resolve(headline ? "headline.json" : "reproduction.json"));
        if (earlier.get("wall_seconds") instanceof Number num) wall = num.doubleValue();
        if (earlier.get("command") instanceof String c) ran = c;
      } catch (java.io.IOException e) {
        // no earlier document: the judging's own time
      }
    } else {
      stdout.printf("reproducing %s: %d figure files, %d seed%s%s -> %s%n", String.join(", ", chosen),
          figures.size(), n, n == 1 ? "" : "s", quick ? ", quick" : "", dir);
      stdout.flush();
      outcome = Reproduction.run(figures, options, stdout);
    }
    Map<String, Object> doc = Report.document(ran != null ? ran : command(n), quick, n, wall != null ? wall
        : (System.nanoTime() - start) / 1e9, outcome.rows());
    String name = headline ? "headline" : "reproduction";
    if (headline) doc.put("headline", true);
    Report.write(dir, doc, name);
    stdout.println("counts: " + doc.get("counts"));
    stdout.println("wrote " + dir.resolve(name + ".json") + " and " + dir.resolve(name + ".md"));
    if (!outcome.badMetrics().isEmpty()) {
      outcome.badMetrics().forEach(err::println);
      return Main.BAD_INPUT;
    }
    return outcome.broken() ? Main.BROKEN : Main.OK;
  }

  /** The command as it is recorded in the document ({@code n} seeds). */
  private String command(int n) {
    return "reproduce " + String.join(" ", papers.isEmpty() ? List.of("all") : papers)
        + (quick ? " --quick" : "") + (seeds != null ? " --seeds " + n : "")
        + (scale != null ? " --scale " + (scale == Math.rint(scale) ? String.valueOf(scale.longValue()) : scale) : "");
  }

  /** The figures to run (only the headline's, for it); null after a bad expect block, reported. */
  private static List<Reproduction.Figure> plan(Reproduction.Options options, boolean headline, PrintWriter err) {
    try {
      List<Reproduction.Figure> figures = Reproduction.plan(options);
      return headline ? Reproduction.headline(figures) : figures;
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return null;
    }
  }

  /** {@code --render}: the Markdown tables of a reproduction.json, and nothing run. */
  private int render(PrintWriter stdout, PrintWriter err) {
    try {
      stdout.print(Report.page(Report.read(render), render.toString().replace('\\', '/')));
      stdout.flush();
      return Main.OK;
    } catch (java.io.IOException | RuntimeException e) {
      err.println(render + ": not a reproduction.json: " + e.getMessage());
      return Main.BAD_INPUT;
    }
  }

  /** The papers named (all for none or the headline), each once in order; null after a bad name, reported. */
  private List<String> chosenPapers(boolean headline, PrintWriter err) {
    List<String> chosen = new ArrayList<>();
    if (headline && papers.size() > 1) {
      err.println("reproduce headline: takes no paper; it judges every paper's headline claims");
      return null;
    }
    for (String p : papers.isEmpty() || headline ? List.of("all") : papers) {
      if (p.equals("all")) {
        Reproduction.PAPERS.stream().filter(x -> !chosen.contains(x)).forEach(chosen::add);
      } else if (Reproduction.PAPERS.contains(p)) {
        if (!chosen.contains(p)) chosen.add(p);
      } else {
        err.println("reproduce " + p + ": unknown paper; expected one of " + Reproduction.PAPERS + " or all");
        return null;
      }
    }
    return chosen;
  }

  /** The first bad option's one line ({@code n} seeds), or null. */
  private String badOption(int n) {
    if (n < 1) return "--seeds " + n + ": expected an integer >= 1";
    if (scale != null && !(scale > 0) || scale != null && scale.isInfinite()) {
      return "--scale " + scale + ": expected a time scale > 0";
    }
    if (!Files.isDirectory(conf)) return conf + ": no such folder of scenario files (--conf)";
    if (rejudge && (out == null || !Files.isDirectory(out))) {
      return "--rejudge: needs --out, the folder of the run to judge again";
    }
    return null;
  }
}
