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
import java.util.concurrent.CompletableFuture;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.html.HeadlessChromium;
import org.gpuemu.emulator.run.RunResult;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
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
    long rows = Files.readAllLines(dir.resolve("out/timeline.jsonl")).size();
    assertEquals(rows, ((Number) js.executeScript(FPS_POINTS)).longValue(), "every timeline row is a point");
    String card = (String) js.executeScript("return document.querySelector('.card[data-vm=a]').textContent");
    assertTrue(card.contains("FPS") && card.contains("mode"), card);
    String banner = (String) js.executeScript("return document.getElementById('banner').textContent");
    assertTrue(banner.startsWith("Run ended: "), banner);
    Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), SCREENSHOTS.resolve("dashboard.png"),
        StandardCopyOption.REPLACE_EXISTING);
  }
}
