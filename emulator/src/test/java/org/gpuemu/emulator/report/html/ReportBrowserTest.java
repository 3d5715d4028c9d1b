package org.gpuemu.emulator.report.html;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Opens generated reports in Debian's headless Chromium through Debian's chromedriver (no browser download), from
 * file:// URLs as a reader would: every panel gets an ECharts instance that painted its canvas, nothing is loaded
 * from anywhere, no script error or console error; a screenshot of each page goes to
 * {@code target/report-screenshots/}. Skipped where /usr/bin/chromium or /usr/bin/chromedriver is missing
 * ({@code .ci/run} installs both).
 */
@Tag("slow")
class ReportBrowserTest {
  static final Path SCREENSHOTS = Paths.get("target", "report-screenshots");

  private static HeadlessChromium chromium;
  private static ChromeDriver driver;

  @TempDir static Path dir;

  @BeforeAll
  static void startChromium() throws Exception {
    chromium = HeadlessChromium.start("report", true);
    driver = chromium.driver();
    Files.createDirectories(SCREENSHOTS);
  }

  @AfterAll
  static void stopChromium() throws Exception {
    if (chromium != null) chromium.close();
  }

  @ParameterizedTest
  @ValueSource(strings = {"hybrid", "combo", "gballoon", "compare", "controlled"})
  void report_drawsEveryPanel_fetchesNothing_andLogsNoError(String fixture) throws Exception {
    Path page = ReportPage.write(Fixtures.copy(fixture, dir));
    int panels = Fixtures.panels(Files.readString(page)).size();
    assertTrue(panels > 0, "the fixture has panels");
    driver.manage().window().setSize(new Dimension(1400, 1000));
    driver.get(page.toUri().toString());
    JavascriptExecutor js = driver;
    new WebDriverWait(driver, Duration.ofSeconds(20))
        .until(d -> js.executeScript("return document.body.getAttribute('data-charts')") != null);
    assertEquals(String.valueOf(panels), js.executeScript("return document.body.getAttribute('data-charts')"),
        "one chart per panel section");
    // each panel: an ECharts instance, a series with data, and a canvas with painted (non-transparent) pixels
    String check = """
        var out = [];
        document.querySelectorAll('.chart').forEach(function (el) {
          var chart = echarts.getInstanceByDom(el);
          var canvas = el.querySelector('canvas');
          var points = chart ? chart.getOption().series.reduce(function (n, s) { return n + s.data.length; }, 0) : 0;
          var painted = false;
          if (canvas && canvas.width > 0) {
            var px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
            for (var i = 3; i < px.length && !painted; i += 4) painted = px[i] > 0;
          }
          if (!chart || !canvas || points === 0 || !painted) {
            out.push(el.id + ': instance ' + !!chart + ', canvas ' + !!canvas + ', points ' + points
                + ', painted ' + painted);
          }
        });
        return out;""";
    new WebDriverWait(driver, Duration.ofSeconds(10))
        .until(d -> ((List<?>) js.executeScript(check)).isEmpty());
    assertEquals(List.of(), js.executeScript("return window.reportErrors"), "errors caught by the page");
    assertEquals(List.of(), js.executeScript(
        "return performance.getEntriesByType('resource').map(function (e) { return e.name; })"),
        "the page loads no resource at all");
    List<String> severe = driver.manage().logs().get(LogType.BROWSER).getAll().stream()
        .filter(e -> e.getLevel().intValue() >= Level.WARNING.intValue()).map(LogEntry::toString)
        .collect(Collectors.toList());
    assertEquals(List.of(), severe, "Chromium's console");
    long height = (Long) js.executeScript("return document.documentElement.scrollHeight");
    driver.manage().window().setSize(new Dimension(1400, (int) Math.min(height + 40, 8000)));
    Path shot = driver.getScreenshotAs(OutputType.FILE).toPath();
    Files.copy(shot, SCREENSHOTS.resolve(fixture + ".png"), StandardCopyOption.REPLACE_EXISTING);
  }

}
