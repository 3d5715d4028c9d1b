package org.gpuemu.emulator.dashboard;

import static org.apache.pekko.http.javadsl.server.Directives.complete;
import static org.apache.pekko.http.javadsl.server.Directives.completeWithFuture;
import static org.apache.pekko.http.javadsl.server.Directives.entity;
import static org.apache.pekko.http.javadsl.server.Directives.post;
import static org.apache.pekko.http.javadsl.server.Directives.completeOK;
import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequest;
import static org.apache.pekko.http.javadsl.server.Directives.extractRequestContext;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.apache.pekko.http.javadsl.marshalling.sse.EventStreamMarshalling;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.apache.pekko.stream.Materializer;
import org.gpuemu.emulator.cluster.ClusterObserver;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.html.EChartsLibrary;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;

/**
 * The dashboard's HTTP server: {@code /} the page, {@code /echarts.min.js} the report's pinned ECharts bundle,
 * {@code /events} the Server-Sent Events of {@link LiveFeed}. It runs in an actor system of its own, so the run's
 * system, scheduler and mailboxes are the same with and without it, and it is fed from outside: the metrics hub's
 * timeline tap, the runner's live view and the final summary; or, in a cluster run, the coordinator
 * ({@link ClusterObserver}: the merged timeline's rows, every node's VMs, controls sent to the node of their VM).
 */
public final class LiveDashboard implements AutoCloseable, ClusterObserver {
  /** Two threads at most: the machine's cores belong to the run. */
  private static final Config CONFIG = ConfigFactory.parseString("""
      pekko.actor.default-dispatcher.fork-join-executor.parallelism-max = 2
      pekko.http.server.idle-timeout = infinite
      pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
      """).withFallback(ConfigFactory.load());
  private static final Duration BIND_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration CLIENTS_GONE = Duration.ofSeconds(1);

  private final ActorSystem<Void> system;
  private final ServerBinding binding;
  private final LiveFeed feed;
  private final URI url;
  private final RemoteControl control;
  private final ControlGuard guard;
  private final ObjectMapper json = new ObjectMapper();
  private volatile Runner.Session session;

  private LiveDashboard(ActorSystem<Void> system, ServerBinding binding, LiveFeed feed, URI url,
      RemoteControl control, ControlGuard guard) {
    this.system = system;
    this.guard = guard;
    this.binding = binding;
    this.feed = feed;
    this.url = url;
    this.control = control;
  }

  /**
   * Listens on {@code host:port} (port 0: any free one) for the dashboard of {@code scenario}; bad input, as one
   * line, when the port is out of range or the address cannot be listened on (in use, not this machine's).
   */
  public static LiveDashboard start(String host, int port, Settings.Scenario scenario) throws ConfigProblems {
    if (port < 0 || port > 65_535) {
      throw ConfigProblems.of("--port " + port + ": expected a port number from 0 to 65535 (0: any free port)");
    }
    String cannot = "--port " + port + " --bind " + host + ": the dashboard cannot listen there (";
    // tried with a plain socket first: Pekko's own failed bind logs a stack trace at ERROR, not one line
    try (ServerSocket probe = new ServerSocket()) {
      probe.bind(new InetSocketAddress(InetAddress.getByName(host), port));
    } catch (IOException | SecurityException e) {
      throw ConfigProblems.of(cannot + e.getMessage() + ")");
    }
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "dashboard", CONFIG);
    try {
      LiveFeed feed = new LiveFeed(Materializer.matFromSystem(system));
      RemoteControl control = new RemoteControl(scenario, feed);
      // the guard needs the bound port (port 0: known after binding), and the route the guard
      ControlGuard[] guard = new ControlGuard[1];
      ServerBinding binding = Http.get(system).newServerAt(host, port)
          .bind(routes(feed, control, () -> guard[0], DashboardPage.html(scenario, control)))
          .toCompletableFuture().get(BIND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      InetSocketAddress bound = binding.localAddress();
      guard[0] = ControlGuard.of(host, bound.getPort());
      String shown = host.contains(":") ? "[" + host + "]" : host;
      return new LiveDashboard(system, binding, feed, URI.create("http://" + shown + ":" + bound.getPort() + "/"),
          control, guard[0]);
    } catch (ExecutionException | TimeoutException | InterruptedException e) {
      terminate(system);
      throw ConfigProblems.of(cannot + rootMessage(e) + ")");
    }
  }

  private static Route routes(LiveFeed feed, RemoteControl control,
      java.util.function.Supplier<ControlGuard> guard, String page) {
    return concat(
        // a control is a user's action, not a poll: the page posts one per click; the guard checks who posts it
        path("control", () -> post(() -> extractRequest(request -> {
          java.util.Optional<String> refused = guard.get() == null ? java.util.Optional.of("the dashboard is starting")
              : guard.get().refusal(header(request, "host"), header(request, "origin"),
                  header(request, "authorization"));
          if (refused.isPresent()) {
            return complete(HttpResponse.create().withStatus(StatusCodes.FORBIDDEN).withEntity(
                ContentTypes.APPLICATION_JSON, new ObjectMapper().createObjectNode().put("error", refused.get())
                    .toString()));
          }
          return entity(Unmarshaller.entityToString(), body -> completeWithFuture(control.handle(body)));
        }))),
        pathSingleSlash(() -> get(() -> complete(HttpEntities.create(ContentTypes.TEXT_HTML_UTF8, page)))),
        path("echarts.min.js", () -> get(() -> complete(HttpEntities.create(
            MediaTypes.APPLICATION_JAVASCRIPT.toContentType(HttpCharsets.UTF_8), EChartsLibrary.script())))),
        // extracted per request: each browser gets its own subscription
        path("events", () -> get(() -> extractRequestContext(request -> completeOK(
            feed.subscribe().keepAlive(Duration.ofSeconds(1), ServerSentEvent::heartbeat),
            EventStreamMarshalling.toEventStream())))));
  }

  private static java.util.Optional<String> header(HttpRequest request, String name) {
    return request.getHeader(name).map(HttpHeader::value);
  }

  /** The token a control needs (printed at start); null when the dashboard listens on loopback only. */
  public String token() {
    return guard.token();
  }

  /** The page's address, e.g. {@code http://127.0.0.1:8080/}. */
  public URI url() {
    return url;
  }

  /** A row of a cluster run's merged timeline, as the coordinator writes it. */
  @Override public void row(String json) {
    feed.timeline(json);
  }

  /** What the metrics hub hands each timeline row to. */
  public MetricsHub.TimelineTap tap() {
    return feed::timeline;
  }

  /** The run has started: the page's controls reach it through {@code session} from now on. */
  @Override public void attach(Runner.Session session) {
    this.session = session;
    control.attach(session);
  }

  /** What became of a control (on a dispatcher thread of the run: publishing does not block). */
  @Override public void controlled(Control.Record record) {
    control.controlled(record);
  }

  /** The runner's live view: emulated time, real-time factor, p99 timer lateness, the verdict so far. */
  @Override public void live(MetricsHub.LiveView view) {
    ObjectNode o = json.createObjectNode();
    o.put("t_s", view.emulatedNanos() / 1e9);
    Runner.Session s = session;
    o.put("paused", s != null && s.paused());
    if (Double.isFinite(view.realTimeFactor())) o.put("rtf", view.realTimeFactor());
    if (view.latenessP99Us() >= 0) o.put("p99_us", view.latenessP99Us());
    if (view.verdict() != null) o.put("verdict", view.verdict());
    ArrayNode vms = o.putArray("vms");
    for (int i = 0; i < view.names().size(); i++) {
      vms.addObject().put("vm", view.names().get(i)).put("fps", view.fps()[i]).put("gpu_share", view.gpuShare()[i]);
    }
    feed.live(o.toString());
  }

  /**
   * A compare's run {@code index} (from 0) of {@code count}, under policy {@code label}, begins: the page starts its
   * charts afresh and names the policy.
   */
  public void begin(String label, int index, int count) {
    feed.run(LiveFeed.RUN, json.createObjectNode().put("policy", label).put("index", index).put("count", count)
        .toString());
  }

  /** A compare's run under {@code label} has ended: a row of the page's results table. */
  public void runEnded(String label, Summary summary) {
    ObjectNode o = json.createObjectNode().put("policy", label).put("faithful", summary.faithful())
        .put("reason", summary.reason()).put("invariants", summary.brokenInvariants().isEmpty());
    ObjectNode fps = o.putObject("fps");
    ObjectNode share = o.putObject("gpu_share");
    summary.doc().vms().forEach((vm, v) -> {
      fps.put(vm, v.frames().fps());
      share.put(vm, v.gpu().gpuShare());
    });
    o.put("mmr", summary.doc().fairness().mmr());
    if (summary.doc().fairness().lambda() != null) o.put("lambda", summary.doc().fairness().lambda());
    o.put("utilization", summary.doc().gpu().utilization());
    feed.run(LiveFeed.RUN_END, o.toString());
  }

  /** A compare has ended: whether every run was faithful and kept its invariants; the streams complete after it. */
  public void endCompare(boolean faithful, List<String> broken) {
    control.detach();
    ObjectNode o = json.createObjectNode().put("faithful", faithful).put("compare", true)
        .put("reason", faithful ? null : "a run is unfaithful (see its row)");
    ArrayNode b = o.putArray("broken_invariants");
    broken.forEach(b::add);
    feed.end(o.toString());
  }

  /** The run has ended: its verdict and summary.json's document; the event streams complete after it. */
  public void end(Summary summary) {
    end(summary.faithful(), summary.reason(), summary.brokenInvariants(), summary.document());
  }

  /**
   * The run has ended, told by its parts: whether it was faithful and why not, the invariants it broke and
   * summary.json's document (a cluster run's merged one); the event streams complete after it.
   */
  public void end(boolean faithful, String reason, List<String> brokenInvariants, Object document) {
    control.detach();
    ObjectNode o = json.createObjectNode();
    o.put("faithful", faithful);
    o.put("reason", reason);
    ArrayNode broken = o.putArray("broken_invariants");
    brokenInvariants.forEach(broken::add);
    o.set("summary", json.valueToTree(document));
    try {
      feed.end(json.writeValueAsString(o));
    } catch (JsonProcessingException e) {
      feed.end("{\"faithful\":" + faithful + "}");
    }
  }

  /**
   * Stops serving: gives the browsers up to {@link #CLIENTS_GONE} to take the end event and close their streams,
   * ends the streams of the others (curl) gracefully, then releases the port.
   */
  @Override public void close() {
    control.detach();
    feed.end("{}"); // no-op after end(); otherwise tells the browsers the run is gone
    try {
      if (!feed.awaitClientsGone(CLIENTS_GONE.toMillis())) {
        feed.completeAll();
        feed.awaitClientsGone(CLIENTS_GONE.toMillis());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    try {
      binding.terminate(Duration.ofSeconds(2)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the system's termination below closes what is left
    }
    terminate(system);
  }

  private static void terminate(ActorSystem<Void> system) {
    system.terminate();
    try {
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // a system that does not stop in time holds daemon threads only; the command still ends
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) t = t.getCause();
    return t instanceof TimeoutException ? "no answer in " + BIND_TIMEOUT.toSeconds() + " s" : String.valueOf(t.getMessage());
  }
}
