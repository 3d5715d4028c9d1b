package org.gpuemu.emulator.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.html.HeadlessChromium;
import org.gpuemu.emulator.run.RunResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard as a viewer sees it, in Debian's headless Chromium (the driver set up as {@code ReportBrowserTest}
 * does): opened before a short slow-motion run, its FPS chart gains points while the run goes, its cards show the VM
 * and the page ends with the verdict banner; a screenshot goes to {@code target/dashboard-screenshots/}. Skipped
 * where /usr/bin/chromium or /usr/bin/chromedriver is missing.
 */
@Tag("slow")
class DashboardBrowserTest {
  static final Path SCREENSHOTS = Paths.get("target", "dashboard-screenshots");

  private static HeadlessChromium chromium;
  private static ChromeDriver driver;

  @TempDir Path dir;

  @BeforeAll
  static void startChromium() throws Exception {
    chromium = HeadlessChromium.start("dashboard", false);
    driver = chromium.driver();
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterAll
  static void stopChromium() throws Exception {
    if (chromium != null) chromium.close();
  }

  /** The latest model time (s) of a point on the frame-rate chart (-1: none). */
  private static final String FPS_LAST_X = """
      var c = echarts.getInstanceByDom(document.getElementById('fps'));
      return c ? c.getOption().series.reduce(function (m, s) {
        return s.data.length ? Math.max(m, s.data[s.data.length - 1][0]) : m; }, -1) : -1;
      """;

  /** The emulated time (s) the status line shows. */
  private static String emulatedShown(String status) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("emulated ([0-9.]+)").matcher(status);
    assertTrue(m.find(), status);
    return m.group(1);
  }

  private static final String FPS_POINTS = """
      var c = echarts.getInstanceByDom(document.getElementById('fps'));
      return c ? c.getOption().series.reduce(function (n, s) { return n + s.data.length; }, 0) : -1;
      """;

  @Test
  void openDuringSlowMotionRun_chartsGrowWhileItGoes_andTheVerdictShowsAtTheEnd() throws Exception {
    // half speed, 100 ms metrics periods: about 3 wall s and 15 rows, so the page sees several updates
    Settings.Scenario scenario = LiveDashboardTest.shortRun(dir, "dirt3", "1500ms", 0.5);
    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    PrintWriter out = new PrintWriter(new StringWriter(), true);
    options.open(scenario, out);
    driver.get(options.url().toString());
    JavascriptExecutor js = driver;
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
    wait.until(d -> "live".equals(js.executeScript("return document.body.getAttribute('data-state')")));

    CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> {
      try {
        return options.run(scenario, dir.resolve("out"), view -> { }, out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    wait.until(d -> ((Number) js.executeScript(FPS_POINTS)).longValue() > 0);
    long first = ((Number) js.executeScript(FPS_POINTS)).longValue();
    String firstState = (String) js.executeScript("return document.body.getAttribute('data-state')");
    wait.until(d -> ((Number) js.executeScript(FPS_POINTS)).longValue() > first);
    assertEquals("live", firstState, "the first points came while the run went on");

    run.get();
    wait.until(d -> "ended".equals(js.executeScript("return document.body.getAttribute('data-state')")));
    List<String> lines = Files.readAllLines(dir.resolve("out/timeline.jsonl"));
    double[] t = lines.stream().mapToDouble(l -> Double.parseDouble(l.replaceAll(".*\"t_s\":([0-9.]+).*", "$1")))
        .toArray();
    int k = t.length;
    // one VM: every row is a point, but for a last period the run's end cut to under half a period (its rates are
    // noise, and the report leaves it out too)
    long expected = k >= 3 && t[k - 1] - t[k - 2] < (t[k - 2] - t[k - 3]) / 2 ? k - 1 : k;
    assertEquals(expected, ((Number) js.executeScript(FPS_POINTS)).longValue(), "every timeline row is a point");
    String card = (String) js.executeScript("return document.querySelector('.card[data-vm=a]').textContent");
    assertTrue(card.contains("FPS") && card.contains("mode"), card);
    String banner = (String) js.executeScript("return document.getElementById('banner').textContent");
    assertTrue(banner.startsWith("Run ended: "), banner);
    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOTS.resolve("dashboard.png"),
        StandardCopyOption.REPLACE_EXISTING);
  }

  private static String attr(JavascriptExecutor js, String name) {
    return (String) js.executeScript("return document.body.getAttribute('" + name + "')");
  }

  /**
   * A person at the dashboard of the default scenario: pauses the run (the status says so and the FPS chart stops
   * growing), injects a vCPU stall on NBA 2012 from the form, resumes; the run's summary then has the fault and the
   * pause in {@code controls} and the fault in {@code faults}, and the chart marks where it struck. Screenshots of
   * the page while paused and at the end go to {@code target/dashboard-screenshots/}.
   */
  @Test
  void aPersonPausesInjectsAFaultAndResumes_theSummaryShowsIt() throws Exception {
    Path conf = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
        "default-contention.conf");
    Settings.Scenario scenario = org.gpuemu.emulator.config.ScenarioLoader.load(conf,
        new org.gpuemu.emulator.config.ScenarioLoader.Overrides(1.0, 4_000_000_000L, 7L,
            java.util.Map.of("metrics.period", "200ms"), org.gpuemu.emulator.config.FaultPlan.Cli.NONE));
    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    PrintWriter out = new PrintWriter(new StringWriter(), true);
    options.open(scenario, out);
    driver.get(options.url().toString());
    JavascriptExecutor js = driver;
    WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
    wait.until(d -> "live".equals(attr(js, "data-state")));
    CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> {
      try {
        return options.run(scenario, dir.resolve("out"), view -> { }, out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    wait.until(d -> ((Number) js.executeScript(FPS_POINTS)).longValue() >= 6);

    driver.findElement(org.openqa.selenium.By.id("pause")).click();
    wait.until(d -> "true".equals(attr(js, "data-paused")));
    String status = (String) js.executeScript("return document.getElementById('status').textContent");
    assertTrue(status.startsWith("PAUSED"), status);
    // for five metric periods (200 ms each) of wall time, in which an unpaused run would have drawn new points: the
    // emulated time shown stands, and a point still on its way (a period that ended before the pause) may come, but
    // none later than the pause (the status rounds to 0.1 s)
    String pausedAt = emulatedShown(status);
    org.gpuemu.emulator.run.Poll.holdsFor(1_000_000_000L, () -> {
      String now = (String) js.executeScript("return document.getElementById('status').textContent");
      assertEquals(pausedAt, emulatedShown(now), "the emulated time stands while paused: " + now);
      double lastX = ((Number) js.executeScript(FPS_LAST_X)).doubleValue();
      assertTrue(lastX <= Double.parseDouble(pausedAt) + 0.05, "nothing past the pause at " + pausedAt + ": " + lastX);
    });

    new org.openqa.selenium.support.ui.Select(driver.findElement(org.openqa.selenium.By.id("fault-kind")))
        .selectByValue("vcpu-stall");
    new org.openqa.selenium.support.ui.Select(driver.findElement(org.openqa.selenium.By.id("fault-vm")))
        .selectByValue("nba2012");
    org.openqa.selenium.WebElement heal = driver.findElement(org.openqa.selenium.By.id("fault-heal"));
    assertEquals("1.0s", heal.getAttribute("value"), "the kind's default heal, from reference.conf");
    heal.clear();
    heal.sendKeys("500ms");
    driver.findElement(org.openqa.selenium.By.id("fault-go")).click();
    wait.until(d -> ((String) js.executeScript("return document.getElementById('log').textContent"))
        .contains("requested: fault vcpu-stall on nba2012"));
    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOTS.resolve("dashboard-paused.png"),
        StandardCopyOption.REPLACE_EXISTING);
    driver.findElement(org.openqa.selenium.By.id("resume")).click();
    wait.until(d -> "false".equals(attr(js, "data-paused")));
    wait.until(d -> ((String) js.executeScript("return document.getElementById('log').textContent"))
        .contains("applied: fault vcpu-stall on nba2012"));

    RunResult result = run.get();
    wait.until(d -> "ended".equals(attr(js, "data-state")));
    org.gpuemu.emulator.report.SummaryDoc doc = new org.gpuemu.emulator.report.Summary(result).doc();
    assertEquals(List.of("pause", "fault"), doc.controls().stream().map(c -> c.what()).toList());
    assertEquals("vcpu-stall", doc.faults().get(0).kind());
    assertEquals("nba2012", doc.faults().get(0).target());
    assertEquals(doc.controls().get(1).atS(), doc.faults().get(0).atS(), 1e-9, "the control is the fault");
    assertEquals(0.5, doc.controls().get(1).healAfterS(), 1e-9);
    Number marked = (Number) js.executeScript("var c = echarts.getInstanceByDom(document.getElementById('fps'));"
        + "return c.getOption().series[0].markLine.data.length;");
    assertEquals(1, marked.intValue(), "the fault is marked on the FPS chart");
    // the fairness chart: one MMR point per metrics period the page drew, each the report's formula over that
    // period's rows (equal weights here: min/max of the VMs' GPU shares), to the timeline's 4 decimals
    java.util.Map<Double, double[]> minMax = new java.util.TreeMap<>();
    for (String line : Files.readAllLines(dir.resolve("out/timeline.jsonl"))) {
      var row = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
      double[] m = minMax.computeIfAbsent(row.get("t_s").asDouble(), k -> new double[] {Double.MAX_VALUE, 0});
      m[0] = Math.min(m[0], row.get("gpu_share").asDouble());
      m[1] = Math.max(m[1], row.get("gpu_share").asDouble());
    }
    @SuppressWarnings("unchecked")
    List<List<Number>> mmr = (List<List<Number>>) js.executeScript("return echarts.getInstanceByDom("
        + "document.getElementById('fairness')).getOption().series[0].data;");
    assertTrue(mmr.size() >= minMax.size() - 1 && !mmr.isEmpty(), mmr.size() + " MMR points, periods " + minMax.size());
    for (List<Number> point : mmr) {
      double[] m = minMax.get(point.get(0).doubleValue());
      assertEquals(m[0] / m[1], point.get(1).doubleValue(), 1e-9, "MMR at " + point.get(0));
    }
    long memoryPoints = ((Number) js.executeScript("return echarts.getInstanceByDom(document.getElementById("
        + "'memory')).getOption().series.reduce(function (n, s) { return n + s.data.length; }, 0);")).longValue();
    assertEquals(((Number) js.executeScript(FPS_POINTS)).longValue(), memoryPoints, "a memory point per FPS point");
    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOTS.resolve("dashboard-controls.png"),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
