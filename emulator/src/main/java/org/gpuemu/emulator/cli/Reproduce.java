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
  @Parameters(arity = "0..*", paramLabel = "PAPER",
      description = "vgris, fairgv, vmcg, combo, gballoon or all (default: all)")
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

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    PrintWriter stdout = spec.commandLine().getOut();
    if (render != null) {
      try {
        stdout.print(Report.markdown(Report.read(render)));
        stdout.flush();
        return Main.OK;
      } catch (java.io.IOException | RuntimeException e) {
        err.println(render + ": not a reproduction.json: " + e.getMessage());
        return Main.BAD_INPUT;
      }
    }
    List<String> chosen = new ArrayList<>();
    for (String p : papers.isEmpty() ? List.of("all") : papers) {
      if (p.equals("all")) {
        Reproduction.PAPERS.stream().filter(x -> !chosen.contains(x)).forEach(chosen::add);
      } else if (Reproduction.PAPERS.contains(p)) {
        if (!chosen.contains(p)) chosen.add(p);
      } else {
        err.println("reproduce " + p + ": unknown paper; expected one of " + Reproduction.PAPERS + " or all");
        return Main.BAD_INPUT;
      }
    }
    int n = seeds != null ? seeds : quick ? 1 : 3;
    if (n < 1) {
      err.println("--seeds " + n + ": expected an integer >= 1");
      return Main.BAD_INPUT;
    }
    if (scale != null && !(scale > 0) || scale != null && scale.isInfinite()) {
      err.println("--scale " + scale + ": expected a time scale > 0");
      return Main.BAD_INPUT;
    }
    if (!Files.isDirectory(conf)) {
      err.println(conf + ": no such folder of scenario files (--conf)");
      return Main.BAD_INPUT;
    }
    Path dir = out != null ? out : Main.timestamped("reproduce-");
    Reproduction.Options options = new Reproduction.Options(conf, chosen, quick, n, dir, PolicyCatalog.builtIn(),
        warmUp, scale);
    List<Reproduction.Figure> figures;
    try {
      figures = Reproduction.plan(options);
    } catch (ConfigProblems p) {
      p.problems().forEach(err::println);
      return Main.BAD_INPUT;
    }
    if (!Main.createFolder(dir, err)) return Main.BAD_INPUT;
    Main.configureLogging(dir, false);
    stdout.printf("reproducing %s: %d figure files, %d seed%s%s -> %s%n", String.join(", ", chosen), figures.size(),
        n, n == 1 ? "" : "s", quick ? ", quick" : "", dir);
    stdout.flush();
    long start = System.nanoTime();
    Reproduction.Outcome outcome = Reproduction.run(figures, options, stdout);
    String command = "reproduce " + String.join(" ", papers.isEmpty() ? List.of("all") : papers)
        + (quick ? " --quick" : "") + (seeds != null ? " --seeds " + n : "")
        + (scale != null ? " --scale " + (scale == Math.rint(scale) ? String.valueOf(scale.longValue()) : scale) : "");
    Map<String, Object> doc = Report.document(command, quick, n, (System.nanoTime() - start) / 1e9,
        outcome.rows());
    Report.write(dir, doc);
    stdout.println("counts: " + doc.get("counts"));
    stdout.println("wrote " + dir.resolve("reproduction.json") + " and " + dir.resolve("reproduction.md"));
    if (!outcome.badMetrics().isEmpty()) {
      outcome.badMetrics().forEach(err::println);
      return Main.BAD_INPUT;
    }
    return outcome.broken() ? Main.BROKEN : Main.OK;
  }
}
