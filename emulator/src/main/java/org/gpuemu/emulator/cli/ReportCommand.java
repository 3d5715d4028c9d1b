package org.gpuemu.emulator.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.gpuemu.emulator.report.html.ReportException;
import org.gpuemu.emulator.report.html.ReportPage;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code report DIR}: (re)writes DIR/report.html from the files a run or a compare left there. */
@Command(name = "report", mixinStandardHelpOptions = true,
    description = "Write DIR/report.html again from DIR's summary.json and timeline.jsonl (a compare folder: from "
        + "compare.json and each policy's subfolder). The page is self-contained: it opens offline.")
final class ReportCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "DIR", description = "a run's or a compare's output folder")
  Path dir;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() {
    try {
      spec.commandLine().getOut().println("wrote " + ReportPage.write(dir));
      return Main.OK;
    } catch (ReportException e) {
      spec.commandLine().getErr().println(e.getMessage());
      return Main.BAD_INPUT;
    }
  }

  /**
   * After a run or a compare: writes its report unless {@code --no-report}. A report that cannot be written is a
   * warning; the run's own exit status stands.
   */
  static void afterRun(Path dir, boolean noReport, PrintWriter out, PrintWriter err) {
    if (noReport) return;
    try {
      out.println("wrote " + ReportPage.write(dir));
    } catch (ReportException | RuntimeException e) {
      err.println("warning: no report.html: " + e.getMessage());
    }
  }
}
