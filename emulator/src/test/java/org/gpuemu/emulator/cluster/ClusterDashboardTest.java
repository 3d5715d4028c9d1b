package org.gpuemu.emulator.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.dashboard.LiveDashboard;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The coordinator's live dashboard over real HTTP on a cluster run of two nodes (two actor systems of this JVM on
 * loopback): a browser's event stream gets every row of the merged timeline.jsonl in its order and a live view of
 * every VM of both nodes; a control for a VM of the other node reaches that node and comes back at the model time it
 * answered, on the page and in summary.json; a pause is refused with its reason, a cross-origin control by the guard.
 */
@Tag("slow")
class ClusterDashboardTest {
  private static final Path FILE = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios", "cluster",
      "three-hosts.conf");
  /** Real time, 3 emulated s: the controls are sent before the parts' time zero, so they land at its start. */
  private static final ScenarioLoader.Overrides RUN = new ScenarioLoader.Overrides(1.0, 3_000_000_000L, null,
      Map.of());
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  record Event(String type, String data) {}

  @Test
  void coordinatorDashboard_showsEveryNodesVms_andAControlReachesTheNodeOfItsVm() throws Exception {
    Settings.Scenario s = ScenarioLoader.load(FILE, RUN);
    // host i runs on node i mod 2: host 1's VMs on the other node, host 0's on the coordinator's
    Settings.Vm remote = s.vms().stream().filter(v -> v.host() == 1).findFirst().orElseThrow();
    Settings.Vm local = s.vms().stream().filter(v -> v.host() == 0).findFirst().orElseThrow();
    LiveDashboard live = LiveDashboard.start("127.0.0.1", 0, s);
    CompletableFuture<Void> attached = new CompletableFuture<>();
    ClusterObserver watched = new ClusterObserver() {
      @Override public void row(String json) {
        live.row(json);
      }

      @Override public void live(MetricsHub.LiveView view) {
        live.live(view);
      }

      @Override public void controlled(Control.Record record) {
        live.controlled(record);
      }

      @Override public void attach(Runner.Session session) {
        live.attach(session);
        attached.complete(null);
      }
    };
    HttpClient client = HttpClient.newHttpClient();
    HttpResponse<Stream<String>> stream = client.sendAsync(HttpRequest.newBuilder(live.url().resolve("events"))
        .build(), HttpResponse.BodyHandlers.ofLines()).get(60, TimeUnit.SECONDS);
    CompletableFuture<List<Event>> events = CompletableFuture.supplyAsync(() -> read(stream.body()));
    Path out = dir.resolve("out");
    ClusterRun.Outcome o;
    double remoteAt;
    try (InJvmNodes nodes = new InJvmNodes()) {
      CompletableFuture<ClusterRun.Outcome> run = CompletableFuture.supplyAsync(() -> {
        try {
          return ClusterRun.run(new ClusterRun.Source(FILE, RUN), s, 2, out,
              ClusterRun.Plan.of(nodes).withObserver(watched));
        } catch (Exception e) {
          throw new java.util.concurrent.CompletionException(e);
        }
      });
      attached.get(300, TimeUnit.SECONDS);
      URI control = live.url().resolve("control");
      HttpResponse<String> weight = post(client, control, "{\"what\":\"weight\",\"target\":\"" + remote.name()
          + "\",\"value\":3}", null);
      assertEquals(200, weight.statusCode(), weight.body());
      remoteAt = JSON.readTree(weight.body()).path("at_s").asDouble(-1);
      assertTrue(remoteAt > 0, weight.body());
      HttpResponse<String> fault = post(client, control, "{\"what\":\"fault\",\"kind\":\"gpu-hang\",\"target\":\""
          + local.name() + "\"}", null);
      assertEquals(200, fault.statusCode(), fault.body());
      HttpResponse<String> pause = post(client, control, "{\"what\":\"pause\"}", null);
      assertEquals(409, pause.statusCode(), pause.body());
      assertEquals("pause: " + ClusterSession.NO_PAUSE, JSON.readTree(pause.body()).path("error").asText());
      HttpResponse<String> foreign = post(client, control, "{\"what\":\"weight\",\"target\":\"" + remote.name()
          + "\",\"value\":2}", "http://elsewhere.example");
      assertEquals(403, foreign.statusCode(), "a cross-origin control is refused: " + foreign.body());
      o = run.get(300, TimeUnit.SECONDS);
      assertNotEquals(o.hostNodes().get(s.hosts().get(0).name()), o.hostNodes().get(s.hosts().get(1).name()),
          "the two VMs ran on two nodes: " + o.hostNodes());
      live.end(o.faithful(), null, o.broken(), o.summary());
    } finally {
      // what ClusterCli does at the end: the page gets the merged summary, then the server stops
      live.close();
    }
    List<Event> seen = events.get(60, TimeUnit.SECONDS);
    List<String> rows = new ArrayList<>();
    for (Event e : seen) if (e.type().equals("timeline")) rows.add(e.data());
    assertEquals(Files.readAllLines(out.resolve("timeline.jsonl")), rows,
        "the page gets every row of the merged timeline, in the file's order");
    Set<String> liveVms = new HashSet<>();
    for (Event e : seen) {
      if (!e.type().equals("live")) continue;
      for (JsonNode vm : JSON.readTree(e.data()).path("vms")) if (vm.path("fps").asDouble() > 0) liveVms.add(vm.path("vm").asText());
    }
    Set<Integer> nodesSeen = new HashSet<>(); // host i on node i mod 2
    for (Settings.Vm vm : s.vms()) if (liveVms.contains(vm.name())) nodesSeen.add(vm.host() % 2);
    assertEquals(Set.of(0, 1), nodesSeen, "the live view has frames of both nodes' VMs: " + liveVms);
    JsonNode told = null;
    for (Event e : seen) {
      JsonNode c = e.type().equals("control") ? JSON.readTree(e.data()) : null;
      if (c != null && c.path("what").asText().equals("weight") && c.path("target").asText().equals(remote.name())) told = c;
    }
    assertTrue(told != null, "the other node told what became of the weight: " + seen.stream()
        .filter(e -> e.type().equals("control")).toList());
    assertEquals(remoteAt, told.path("at_s").asDouble(), 1e-9, "at the model time the node answered");
    JsonNode summary = JSON.readTree(out.resolve("summary.json").toFile());
    List<String> recorded = new ArrayList<>();
    for (JsonNode c : summary.path("controls")) recorded.add(c.path("what").asText() + " " + c.path("target").asText());
    assertTrue(recorded.contains("weight " + remote.name()) && recorded.contains("fault " + local.name()),
        "summary.json records both controls: " + recorded);
  }

  private static HttpResponse<String> post(HttpClient client, URI uri, String body, String origin) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (origin != null) b.header("Origin", origin);
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** The events up to the end (or the stream's close); then the stream is closed, as the page closes its own. */
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
}
