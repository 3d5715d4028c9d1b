package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** Writes the generated reference pages ({@link ReferenceDocs}), or checks that the committed ones are current. */
@Command(name = "docs", mixinStandardHelpOptions = true,
    description = "Write the reference pages generated from the code (commands, scenario keys, policies, "
        + "summary.json keys, calibration points) into docs/reference; run it from the repository's root.")
final class DocsCommand implements Callable<Integer> {
  @Option(names = "--out", paramLabel = "DIR", description = "where to write them (default: docs/reference)")
  Path out = Paths.get(ReferenceDocs.FOLDER);

  @Option(names = "--check", description = "write nothing; exit 1 naming each page that differs from the code")
  boolean check;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter stdout = spec.commandLine().getOut();
    Map<String, String> pages = ReferenceDocs.pages(Paths.get(""));
    if (check) {
      List<String> stale = new ArrayList<>();
      for (Map.Entry<String, String> p : pages.entrySet()) {
        Path file = out.resolve(p.getKey());
        if (!Files.isRegularFile(file) || !Files.readString(file).equals(p.getValue())) stale.add(file.toString());
      }
      stale.forEach(f -> stdout.println("stale: " + f));
      if (!stale.isEmpty()) stdout.println("regenerate with: " + ReferenceDocs.COMMAND);
      return stale.isEmpty() ? Main.OK : Main.BROKEN;
    }
    Files.createDirectories(out);
    for (Map.Entry<String, String> p : pages.entrySet()) Files.writeString(out.resolve(p.getKey()), p.getValue());
    stdout.println("wrote " + pages.size() + " pages to " + out);
    return Main.OK;
  }
}
