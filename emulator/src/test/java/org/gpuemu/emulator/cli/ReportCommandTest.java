package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code run} and {@code compare} leave report.html unless {@code --no-report}; {@code report DIR} rewrites it. */
@Tag("slow")
class ReportCommandTest {
  @TempDir Path dir;

  private Path scenario() throws IOException {
    return MainTest.tinyScenario(dir);
  }

  @Test
  void run_writesReportHtml_andReportDirWritesTheSamePageAgain() throws IOException {
    Path out = dir.resolve("run");
    MainTest.Result r = MainTest.execute("run", scenario().toString(), "--duration", "300ms", "--warm-up", "0s",
        "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    Path page = out.resolve("report.html");
    assertTrue(r.out().contains("wrote " + page), r.out());
    String first = Files.readString(page);
    assertTrue(first.contains("gpuemu report: tiny under fcfs"), "the page names the run");
    Files.delete(page);
    MainTest.Result again = MainTest.execute("report", out.toString());
    assertEquals(0, again.status(), again.toString());
    assertEquals("wrote " + page, again.out().trim());
    assertEquals(first, Files.readString(page), "the same files give the same page");
  }

  @Test
  void run_withNoReport_writesNoReportHtml() throws IOException {
    Path out = dir.resolve("quiet");
    MainTest.Result r = MainTest.execute("run", scenario().toString(), "--duration", "300ms", "--warm-up", "0s",
        "--no-report", "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    assertTrue(Files.isRegularFile(out.resolve("summary.json")));
    assertFalse(Files.exists(out.resolve("report.html")), "--no-report");
  }

  @Test
  void compare_writesTheComparePage_andEachPolicysPage() throws IOException {
    Path out = dir.resolve("cmp");
    MainTest.Result r = MainTest.execute("compare", scenario().toString(), "--policies", "fcfs,round-robin",
        "--duration", "300ms", "--warm-up", "0s", "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    for (Path page : new Path[] {out, out.resolve("fcfs"), out.resolve("round-robin")}) {
      assertTrue(Files.isRegularFile(page.resolve("report.html")), "no report.html in " + page);
    }
    assertTrue(Files.readString(out.resolve("report.html")).contains("gpuemu compare: tiny under fcfs, round-robin"));
  }

  @Test
  void report_ofAFolderWithoutSummary_exits2_withOneClearLine() throws IOException {
    Path empty = Files.createDirectories(dir.resolve("empty"));
    MainTest.Result r = MainTest.execute("report", empty.toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    assertEquals(empty + ": neither summary.json nor compare.json here (not a run or compare folder)",
        r.errLines().get(0));
    r.assertNoStackTrace();
    assertFalse(Files.exists(empty.resolve("report.html")));
  }

  @Test
  void report_ofAMissingFolder_exits2() {
    MainTest.Result r = MainTest.execute("report", dir.resolve("nowhere").toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(1, r.errLines().size(), r.err());
    r.assertNoStackTrace();
  }
}
