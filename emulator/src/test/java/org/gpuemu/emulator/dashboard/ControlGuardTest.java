package org.gpuemu.emulator.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import org.gpuemu.emulator.config.Settings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may steer a run: over real HTTP (a raw socket, so the Host and Origin headers are the test's), a control from
 * another site's page is refused on loopback, a Host that is not loopback is refused (DNS rebinding), and a dashboard
 * bound beyond loopback refuses a control without its printed token. Before the run starts an accepted control is
 * answered 409 (no run yet), a refused one 403: the status tells which.
 */
class ControlGuardTest {
  @TempDir Path dir;

  @Test
  void loopback_crossOriginControl_isRefused_sameOriginAndCurlPass() throws Exception {
    try (LiveDashboard live = LiveDashboard.start("127.0.0.1", 0, scenario())) {
      int port = live.url().getPort();
      assertNull(live.token(), "loopback needs no token");
      String self = "127.0.0.1:" + port;
      Answer evil = post(port, self, "http://evil.example", null);
      assertEquals(403, evil.status(), evil.body());
      assertTrue(evil.body().contains("Origin: http://evil.example is not this dashboard's"), evil.body());
      assertEquals(409, post(port, self, "http://" + self, null).status(), "the page's own origin passes");
      assertEquals(409, post(port, "localhost:" + port, null, null).status(), "curl sends no Origin");
      Answer rebound = post(port, "attacker.example:" + port, "http://attacker.example:" + port, null);
      assertEquals(403, rebound.status(), "a name rebound to 127.0.0.1 is not loopback's: " + rebound.body());
      assertTrue(rebound.body().contains("Host: attacker.example:" + port), rebound.body());
      assertEquals(403, post(port, "127.0.0.1:1", null, null).status(), "another port is another origin");
    }
  }

  @Test
  void boundBeyondLoopback_controlWithoutTheToken_isRefused_withItPasses() throws Exception {
    LiveDashboard live = LiveDashboard.start("0.0.0.0", 0, scenario());
    try (live) {
      int port = live.url().getPort();
      String token = live.token();
      assertNotNull(token, "beyond loopback a token is made");
      assertEquals(32, token.length(), "128 random bits in hex: " + token);
      String host = "10.0.0.9:" + port; // any name the machine is reached by
      Answer none = post(port, host, null, null);
      assertEquals(403, none.status(), none.body());
      assertTrue(none.body().contains("Authorization: the dashboard listens beyond loopback"), none.body());
      assertEquals(403, post(port, host, null, "Bearer " + "0".repeat(32)).status(), "a wrong token");
      assertEquals(409, post(port, host, "http://" + host, "Bearer " + token).status(), "the token passes");
      Answer page = get(port, host);
      assertEquals(200, page.status(), "reading needs no token");
    }
  }

  @Test
  void printedAtStart_theTokenAndTheAddressCarryingIt() throws Exception {
    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    options.bind = "0.0.0.0";
    StringWriter printed = new StringWriter();
    options.open(scenario(), new PrintWriter(printed, true));
    try {
      assertTrue(printed.toString().contains("controls need the token "), printed.toString());
      assertTrue(printed.toString().contains("#token="), printed.toString());
    } finally {
      options.run(scenario(), dir.resolve("out"), v -> { }, new PrintWriter(new StringWriter()));
    }
  }

  @Test
  void guard_alone_hostOriginAndTokenRules() {
    ControlGuard g = ControlGuard.of("127.0.0.1", 8080);
    assertEquals(Optional.empty(), g.refusal(Optional.of("localhost:8080"), Optional.of("http://localhost:8080"),
        Optional.empty()));
    assertTrue(g.refusal(Optional.empty(), Optional.empty(), Optional.empty()).orElseThrow().startsWith("Host:"));
    assertTrue(g.refusal(Optional.of("127.0.0.1:8080"), Optional.of("null"), Optional.empty()).orElseThrow()
        .startsWith("Origin:"), "a sandboxed page's origin is null");
    assertTrue(g.refusal(Optional.of("127.0.0.1:8080"), Optional.of("http://127.0.0.1:8081"), Optional.empty())
        .isPresent(), "another port's page");
  }

  private Settings.Scenario scenario() throws Exception {
    return LiveDashboardTest.shortRun(dir, "cuda-loop", "200ms", 1.0);
  }

  record Answer(int status, String body) {}

  private static Answer post(int port, String host, String origin, String authorization) throws Exception {
    String body = "{\"what\":\"pause\"}";
    StringBuilder r = new StringBuilder("POST /control HTTP/1.1\r\nHost: " + host + "\r\n");
    if (origin != null) r.append("Origin: ").append(origin).append("\r\n");
    if (authorization != null) r.append("Authorization: ").append(authorization).append("\r\n");
    r.append("Content-Type: application/json\r\nContent-Length: ").append(body.length())
        .append("\r\nConnection: close\r\n\r\n").append(body);
    return exchange(port, r.toString());
  }

  private static Answer get(int port, String host) throws Exception {
    return exchange(port, "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n");
  }

  private static Answer exchange(int port, String request) throws Exception {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.getOutputStream().write(request.getBytes(StandardCharsets.UTF_8));
      s.getOutputStream().flush();
      String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      int status = Integer.parseInt(all.substring(9, 12));
      int bodyAt = all.indexOf("\r\n\r\n");
      return new Answer(status, bodyAt < 0 ? "" : all.substring(bodyAt + 4));
    }
  }
}
