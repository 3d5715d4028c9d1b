package org.gpuemu.emulator.report.html;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Comparator;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;

/**
 * Debian's headless Chromium driven through Debian's chromedriver (no browser download), with a fresh profile that
 * is deleted on close: what the report's and the dashboard's browser tests share. Skips the calling test where
 * /usr/bin/chromium or /usr/bin/chromedriver is missing ({@code .ci/run} installs both).
 */
public final class HeadlessChromium implements AutoCloseable {
  static final Path CHROMIUM = Paths.get("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Paths.get("/usr/bin/chromedriver");

  /** Held so the setting lasts: Selenium warns that it has no CDP classes for this Chromium; the tests need none. */
  private static final Logger CDP_LOG = Logger.getLogger("org.openqa.selenium.devtools.CdpVersionFinder");

  private final ChromeDriver driver;
  private final Path profile;

  private HeadlessChromium(ChromeDriver driver, Path profile) {
    this.driver = driver;
    this.profile = profile;
  }

  /** Starts one; {@code browserLogs}: keep the console log for {@code driver().manage().logs()}. */
  public static HeadlessChromium start(String name, boolean browserLogs) throws Exception {
    Assumptions.assumeTrue(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER),
        "browser test skipped: no " + CHROMIUM + " or " + CHROMEDRIVER
            + " (apt-get install chromium chromium-driver; .ci/run does)");
    CDP_LOG.setLevel(Level.SEVERE);
    Path profile = Files.createTempDirectory(name + "-chromium-");
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM.toFile());
    // the closed network refuses Chromium's background connections; these flags keep it from trying
    options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--user-data-dir=" + profile, "--window-size=1400,1000");
    if (browserLogs) {
      LoggingPreferences logs = new LoggingPreferences();
      logs.enable(LogType.BROWSER, Level.ALL);
      options.setCapability("goog:loggingPrefs", logs);
    }
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
    return new HeadlessChromium(new ChromeDriver(service, options), profile);
  }

  public ChromeDriver driver() {
    return driver;
  }

  @Override public void close() throws Exception {
    driver.quit();
    try (java.util.stream.Stream<Path> files = Files.walk(profile)) {
      files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
    }
  }
}
