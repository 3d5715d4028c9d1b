package org.gpuemu.emulator.dashboard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Poll;
import org.gpuemu.emulator.run.RunResult;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard over real HTTP: a short run on a free port streams its timeline rows and its end as Server-Sent
 * Events to a plain {@link HttpClient}, the port is released when the run ends, and a busy or impossible port is
 * one line of bad input before anything runs.
 */
@Tag("slow")
class LiveDashboardTest {
  @TempDir Path dir;

  /** One CUDA loop for 1 emulated s with 200 ms metrics periods: five timeline rows, about a wall second. */
  static Settings.Scenario shortRun(Path dir, String workload, String duration, double scale) throws Exception {
    Path file = Files.writeString(dir.resolve("live.conf"), """
        scenario {
          duration = %s
          time-scale = %s
          metrics.period = 100ms
          vms { a { workload = %s } }
        }
        """.formatted(duration, scale, workload));
    return ScenarioLoader.load(file, ScenarioLoader.Overrides.none());
  }

  record Event(String type, String data) {}

  @Test
  void runOnFreePort_streamsTimelineRowsAndTheEnd_thenReleasesThePort() throws Exception {
    Settings.Scenario scenario = shortRun(dir, "cuda-loop", "1s", 1.0);
    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    StringWriter printed = new StringWriter();
    PrintWriter out = new PrintWriter(printed, true);
    options.open(scenario, out);
    URI url = options.url();
    assertTrue(printed.toString().startsWith("dashboard: " + url), printed.toString());
    assertTrue(url.getPort() > 0, "port 0 binds a free port and prints it: " + url);

    HttpClient client = HttpClient.newHttpClient();
    String page = client.send(HttpRequest.newBuilder(url).build(), HttpResponse.BodyHandlers.ofString()).body();
    assertTrue(page.contains("EventSource('events')"), "the page listens to the event stream");

    // subscribe before the run starts: every event then arrives live, none from the replay
    CompletableFuture<HttpResponse<Stream<String>>> stream = client.sendAsync(
        HttpRequest.newBuilder(url.resolve("events")).build(), HttpResponse.BodyHandlers.ofLines());
    HttpResponse<Stream<String>> response = stream.get();
    assertEquals("text/event-stream", response.headers().firstValue("content-type").orElse(""));
    CompletableFuture<List<Event>> events = CompletableFuture.supplyAsync(() -> read(response.body()));

    RunResult result = options.run(scenario, dir.resolve("out"), view -> { }, out);
    List<Event> received = events.get(); // read up to the end event, then closed as a browser does

    ObjectMapper json = new ObjectMapper();
    List<JsonNode> rows = new ArrayList<>();
    for (Event e : received) if (e.type().equals("timeline")) rows.add(json.readTree(e.data()));
    long fileRows = Files.readAllLines(dir.resolve("out/timeline.jsonl")).size();
    // the dashboard observes the rows the file gets: the same number, the same first row
    assertEquals(fileRows, rows.size(), "one timeline event per timeline.jsonl row");
    assertTrue(rows.size() >= 5, "1 s in 100 ms periods: about ten rows, got " + rows.size());
    assertEquals(json.readTree(Files.readAllLines(dir.resolve("out/timeline.jsonl")).get(0)), rows.get(0));
    Event last = received.get(received.size() - 1);
    assertEquals("end", last.type(), "the end is the last event");
    JsonNode end = json.readTree(last.data());
    assertEquals(result.scenario().name(), end.path("summary").path("scenario").asText());
    assertTrue(end.has("faithful"));
    assertTrue(printed.toString().contains("dashboard: stopped"), printed.toString());
    assertNull(options.url(), "no dashboard after the run");
    // the port is free again once the run has ended
    try (ServerSocket again = new ServerSocket(url.getPort(), 1, InetAddress.getLoopbackAddress())) {
      assertEquals(url.getPort(), again.getLocalPort());
    }
  }

  @Test
  void portInUse_isOneLineOfBadInput() throws Exception {
    Settings.Scenario scenario = shortRun(dir, "cuda-loop", "1s", 1.0);
    try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      DashboardOptions options = new DashboardOptions();
      options.enabled = true;
      options.port = taken.getLocalPort();
      ConfigProblems p = assertThrows(ConfigProblems.class,
          () -> options.open(scenario, new PrintWriter(new StringWriter())));
      assertEquals(1, p.problems().size());
      assertTrue(p.problems().get(0).startsWith("--port " + taken.getLocalPort() + " --bind 127.0.0.1: the dashboard"
          + " cannot listen there"), p.problems().get(0));
    }
  }

  /** The events up to and including {@code end}; then the stream is closed, as the page closes its EventSource. */
  private static List<Event> read(Stream<String> lines) {
    List<Event> out = new ArrayList<>();
    String type = null;
    StringBuilder data = new StringBuilder();
    try (lines) {
      for (java.util.Iterator<String> it = lines.iterator(); it.hasNext(); ) {
        String line = it.next();
        if (line.startsWith("event:")) {
          type = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data.append(line.substring(5).trim());
        } else if (line.isEmpty() && type != null) {
          out.add(new Event(type, data.toString()));
          if (type.equals("end")) break;
          type = null;
          data.setLength(0);
        }
      }
    }
    return out;
  }


  /** The default scenario for 1.5 emulated s at time scale 1, seed 7, in 100 ms metrics periods. */
  private static Settings.Scenario defaultContention() throws Exception {
    Path conf = java.nio.file.Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "baseline",
        "default-contention.conf");
    return ScenarioLoader.load(conf, new ScenarioLoader.Overrides(1.0, 1_500_000_000L, 7L, java.util.Map.of("metrics.period", "100ms"),
        org.gpuemu.emulator.config.FaultPlan.Cli.NONE));
  }

  /** summary.json's figures: without what measures the machine (fidelity, wall time). */
  private static java.util.Map<String, Object> figures(org.gpuemu.emulator.report.Summary s) {
    java.util.Map<String, Object> doc = new java.util.LinkedHashMap<>(s.document());
    doc.remove("fidelity");
    doc.remove("wall_seconds");
    return doc;
  }

  @Test
  void attachedRun_hasExactlyTheFiguresOfAnUnattachedOne_sameSeed() throws Exception {
    Settings.Scenario scenario = defaultContention();
    org.gpuemu.emulator.run.Runner.warmUp(scenario, 1_000_000_000L);
    org.gpuemu.emulator.report.Summary plain = new org.gpuemu.emulator.report.Summary(
        org.gpuemu.emulator.run.Runner.run(scenario, dir.resolve("plain"),
            org.gpuemu.emulator.run.Runner.Options.every(250)));

    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    PrintWriter out = new PrintWriter(new StringWriter(), true);
    options.open(scenario, out);
    HttpClient client = HttpClient.newHttpClient();
    HttpResponse<Stream<String>> response = client.sendAsync(
        HttpRequest.newBuilder(options.url().resolve("events")).build(), HttpResponse.BodyHandlers.ofLines()).get();
    CompletableFuture<List<Event>> events = CompletableFuture.supplyAsync(() -> read(response.body()));
    org.gpuemu.emulator.report.Summary attached = new org.gpuemu.emulator.report.Summary(
        options.run(scenario, dir.resolve("attached"), view -> { }, out));
    List<Event> seen = events.get();
    assertTrue(seen.stream().filter(e -> e.type().equals("timeline")).count() >= 15, "a browser watched the run");
    assertTrue(seen.stream().anyMatch(e -> e.type().equals("live")), "and its live status");
    // the conservative order makes the run its seed's alone: not within a tolerance, exactly
    assertEquals(figures(plain), figures(attached));
    assertEquals(Files.readString(dir.resolve("plain/timeline.jsonl")),
        Files.readString(dir.resolve("attached/timeline.jsonl")));
  }

  @Test
  void controlsOverHttp_pauseResumeAndAFault_reachTheRun_andSummaryJsonRecordsThem() throws Exception {
    Settings.Scenario scenario = defaultContention();
    DashboardOptions options = new DashboardOptions();
    options.enabled = true;
    options.port = 0;
    PrintWriter out = new PrintWriter(new StringWriter(), true);
    options.open(scenario, out);
    HttpClient client = HttpClient.newHttpClient();
    URI control = options.url().resolve("control");
    HttpResponse<String> early = post(client, control, "{\"what\":\"pause\"}");
    assertEquals(409, early.statusCode(), "no run yet: " + early.body());

    HttpResponse<Stream<String>> response = client.sendAsync(
        HttpRequest.newBuilder(options.url().resolve("events")).build(), HttpResponse.BodyHandlers.ofLines()).get();
    CompletableFuture<List<Event>> events = CompletableFuture.supplyAsync(() -> read(response.body()));
    CompletableFuture<RunResult> run = CompletableFuture.supplyAsync(() -> {
      try {
        return options.run(scenario, dir.resolve("out"), view -> { }, out);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    ObjectMapper json = new ObjectMapper();
    AtomicReference<HttpResponse<String>> pausing = new AtomicReference<>();
    // 409 until the run has started: pause as soon as it has (or it ended first)
    Poll.until("the run started and took a pause", Duration.ofSeconds(60), () -> {
      pausing.set(post(client, control, "{\"what\":\"pause\"}"));
      return pausing.get().statusCode() != 409 || run.isDone();
    });
    HttpResponse<String> paused = pausing.get();
    long pausedFrom = System.nanoTime();
    assertEquals(200, paused.statusCode(), paused.body());
    assertTrue(json.readTree(paused.body()).path("paused").asBoolean(), paused.body());
    HttpResponse<String> bad = post(client, control, "{\"what\":\"weight\",\"target\":\"nobody\",\"value\":2}");
    assertEquals(400, bad.statusCode());
    assertEquals("target: unknown VM 'nobody'; expected one of [dirt3, 3dmark05, nba2012]",
        json.readTree(bad.body()).path("error").asText());
    HttpResponse<String> fault = post(client, control,
        "{\"what\":\"fault\",\"kind\":\"vcpu-stall\",\"target\":\"nba2012\",\"heal_after\":\"200ms\"}");
    assertEquals(200, fault.statusCode(), fault.body());
    double faultAt = json.readTree(fault.body()).path("at_s").asDouble();
    HttpResponse<String> weight = post(client, control, "{\"what\":\"weight\",\"target\":\"dirt3\",\"value\":3}");
    assertEquals(200, weight.statusCode(), weight.body());
    // the pause lasted at least from its answer to the resume's request, however long the requests in it took
    double pausedAtLeastS = (System.nanoTime() - pausedFrom) / 1e9;
    HttpResponse<String> resumed = post(client, control, "{\"what\":\"resume\"}");
    assertEquals(200, resumed.statusCode(), resumed.body());
    assertTrue(json.readTree(resumed.body()).path("paused_wall_s").asDouble() >= pausedAtLeastS,
        pausedAtLeastS + " s at least: " + resumed.body());
    JsonNode summary = json.valueToTree(new org.gpuemu.emulator.report.Summary(run.get()).document());
    JsonNode controls = summary.path("controls");
    assertEquals(3, controls.size(), controls.toString());
    // in model time: the pause, then the fault and the weight requested while paused, just after its present
    assertEquals("pause", controls.get(0).path("what").asText(), controls.toString());
    assertTrue(controls.get(0).path("paused_wall_s").asDouble() >= pausedAtLeastS - 1e-3, // the summary's ms
        controls.toString());
    assertEquals("fault", controls.get(1).path("what").asText());
    assertEquals(faultAt, controls.get(1).path("at_s").asDouble(), 1e-9);
    assertTrue(controls.get(0).path("at_s").asDouble() < faultAt, controls.toString());
    assertEquals("weight", controls.get(2).path("what").asText());
    assertFalse(controls.get(2).path("applied").asBoolean(), "fcfs weighs no VM");
    assertEquals("fcfs gives no VM a weight", controls.get(2).path("note").asText());
    assertEquals(faultAt, summary.path("faults").get(0).path("at_s").asDouble(), 1e-9);
    List<Event> seen = events.get();
    long controlEvents = seen.stream().filter(e -> e.type().equals("control")).count();
    assertEquals(4, controlEvents, "pause, fault, weight, resume: " + seen.stream()
        .filter(e -> e.type().equals("control")).map(Event::data).toList());
  }

  private static HttpResponse<String> post(HttpClient client, URI uri, String body) throws Exception {
    return client.send(HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
