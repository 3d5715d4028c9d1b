package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
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
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.gpuemu.emulator.run.Poll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code compare S --policies A,B --dashboard}: one page for the whole compare, fed over Server-Sent Events; each
 * policy's run begins afresh ({@code run}), ends with its row of results ({@code run-end}), and the compare's end
 * closes the stream.
 */
@Tag("slow")
class CompareDashboardTest {
  @TempDir Path dir;

  @Test
  void compareWithDashboard_streamsEachPolicysRunAndItsResults_thenTheEnd() throws Exception {
    int port;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = free.getLocalPort();
    }
    Path conf = MainTest.tinyScenario(dir);
    CompletableFuture<MainTest.Result> compare = CompletableFuture.supplyAsync(() -> MainTest.execute("compare",
        conf.toString(), "--policies", "fcfs,round-robin", "--dashboard", "--port", String.valueOf(port),
        "--dashboard-linger", "2s", "--warm-up", "0s", "--no-report", "--out", dir.resolve("out").toString()));
    HttpClient client = HttpClient.newHttpClient();
    AtomicReference<HttpResponse<Stream<String>>> connected = new AtomicReference<>();
    // the dashboard listens once compare has started: connect as soon as it does (or compare ended without it)
    Poll.until("the dashboard listened on " + port, Duration.ofSeconds(60), () -> {
      try {
        connected.set(client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/events")).build(),
            HttpResponse.BodyHandlers.ofLines()));
      } catch (java.io.IOException notYet) {
        return compare.isDone();
      }
      return true;
    });
    HttpResponse<Stream<String>> response = connected.get();
    assertTrue(response != null, "the dashboard listened: " + (compare.isDone() ? compare.get() : ""));
    assertEquals(200, response.statusCode());
    List<String[]> events = new ArrayList<>();
    String type = null;
    StringBuilder data = new StringBuilder();
    try (Stream<String> lines = response.body()) {
      for (Iterator<String> it = lines.iterator(); it.hasNext(); ) {
        String line = it.next(); // an event's fields come in any order: data and event, then an empty line
        if (line.startsWith("event:")) {
          type = line.substring(6).trim();
        } else if (line.startsWith("data:")) {
          data.append(line.substring(5).trim());
        } else if (line.isEmpty() && type != null) {
          events.add(new String[] {type, data.toString()});
          if (type.equals("end")) break;
          type = null;
          data.setLength(0);
        }
      }
    }
    MainTest.Result r = compare.get(120, TimeUnit.SECONDS);
    assertEquals(0, r.status(), r.toString());
    ObjectMapper json = new ObjectMapper();
    List<String> runs = new ArrayList<>();
    List<String> ended = new ArrayList<>();
    for (String[] e : events) {
      if (e[0].equals("run")) runs.add(json.readTree(e[1]).path("policy").asText());
      if (e[0].equals("run-end")) ended.add(json.readTree(e[1]).path("policy").asText());
    }
    assertEquals(List.of("fcfs", "round-robin"), runs, events.stream().map(e -> e[0]).toList() + " " + r);
    assertEquals(List.of("fcfs", "round-robin"), ended);
    JsonNode end = json.readTree(events.get(events.size() - 1)[1]);
    assertEquals("end", events.get(events.size() - 1)[0]);
    assertTrue(end.path("compare").asBoolean(), end.toString());
    assertTrue(events.stream().anyMatch(e -> e[0].equals("timeline")), "the runs' rows came too");
    assertTrue(Files.exists(dir.resolve("out/compare.json")));
    assertTrue(r.out().contains("dashboard: stopped"), r.out());
  }
}
