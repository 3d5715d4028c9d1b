package org.gpuemu.emulator.dashboard;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;

/**
 * The dashboard's controls ({@code POST /control}, docs/guides/report-and-dashboard.md): a JSON body names what to do,
 * is checked against the scenario, and goes to the running emulation's {@link Runner.Session} — a pause or a resume at
 * once, a fault, a weight or a share to the guardian, which makes it an event just after the model's present. The
 * answer is one JSON object: {@code {"ok": true, ...}} with the model time, or {@code {"error": "..."}} with one line
 * naming the field (400), or the run not going (409). What became of each control reaches every page as a {@code
 * control} event ({@link #controlled}).
 *
 * <p>Bodies: {@code {"what": "pause"}}, {@code {"what": "resume"}},
 * {@code {"what": "fault", "kind": "gpu-hang", "target": "vm1", "heal_after": "2s"}} (heal_after optional: the
 * kind's default of reference.conf's {@code fault-defaults}), {@code {"what": "weight", "target": "vm1", "value": 3}},
 * {@code {"what": "share", "target": "vm1", "value": 0.4}}.
 */
final class RemoteControl {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Settings.Scenario scenario;
  private final LiveFeed feed;
  private final FaultPlan.Defaults defaults;
  private volatile Runner.Session session;

  RemoteControl(Settings.Scenario scenario, LiveFeed feed) {
    this.scenario = scenario;
    this.feed = feed;
    Config d = ConfigFactory.defaultReference().getConfig("gpuemu.scenario-defaults.fault-defaults");
    this.defaults = new FaultPlan.Defaults(d.getDuration("tdr-delay").toNanos(), d.getDuration("vcpu-stall").toNanos(),
        d.getDuration("reboot-after").toNanos(), d.getDuration("emulator-stall").toNanos(),
        d.getDuration("message-fault").toNanos(), d.getDuration("core-offline").toNanos(),
        d.getDuration("memory-pressure").toNanos());
  }

  /** The heal delay a fault of {@code kind} gets when the request names none (the page shows it). */
  long defaultHealNanos(FaultPlan.Kind kind) {
    return defaults.of(kind);
  }

  /** The run has started: controls reach it from now on. */
  void attach(Runner.Session session) {
    this.session = session;
  }

  /** The run has ended: controls are refused from now on. */
  void detach() {
    this.session = null;
  }

  /** A control's record (a change; pauses are told as they happen): every page hears what became of it. */
  void controlled(Control.Record r) {
    if (r.isPause()) return;
    ObjectNode o = JSON.createObjectNode();
    o.put("what", r.control().what()).put("target", r.control().target()).put("at_s", r.atNanos() / 1e9)
        .put("applied", r.applied()).put("text", Control.describe(r.control()));
    if (r.note() != null) o.put("note", r.note());
    if (r.control() instanceof Control.Weight w) o.put("value", w.weight());
    if (r.control() instanceof Control.Share sh) o.put("value", sh.share());
    feed.control(o.toString());
  }

  /** Handles one request body. */
  CompletionStage<HttpResponse> handle(String body) {
    Runner.Session s = session;
    if (s == null) return CompletableFuture.completedFuture(answer(409, error("the run is not going")));
    JsonNode request;
    try {
      request = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      return bad("the body is not JSON");
    }
    if (request == null || !request.isObject()) return bad("the body is not a JSON object");
    String what = request.path("what").asText("");
    if ((what.equals("pause") || what.equals("resume")) && s.pauseRefused() != null) {
      return CompletableFuture.completedFuture(answer(409, error(what + ": " + s.pauseRefused())));
    }
    switch (what) {
      case "pause" -> {
        long at = s.pause();
        ObjectNode o = ok().put("paused", true).put("at_s", at / 1e9);
        feed.control(JSON.createObjectNode().put("what", "pause").put("at_s", at / 1e9).toString());
        return CompletableFuture.completedFuture(answer(200, o));
      }
      case "resume" -> {
        long stood = s.resume();
        if (stood > 0) {
          feed.control(JSON.createObjectNode().put("what", "resume").put("paused_wall_s", stood / 1e9).toString());
        }
        return CompletableFuture.completedFuture(answer(200, ok().put("paused", false)
            .put("paused_wall_s", stood / 1e9)));
      }
      case "fault", "weight", "share" -> {
        Control c;
        try {
          c = control(what, request);
        } catch (IllegalArgumentException e) {
          return bad(e.getMessage());
        }
        return s.control(c).thenApply(at -> at < 0 ? answer(409, error("the run ends before it would take effect"))
            : answer(200, ok().put("what", what).put("at_s", at / 1e9).put("text", Control.describe(c))))
            .exceptionally(e -> answer(409, error(refusedBy(e))));
      }
      default -> {
        return bad("what: expected one of pause, resume, fault, weight, share, got '" + what + "'");
      }
    }
  }

  /** Why a control was not taken: the run's own reason (a cluster node lost), else the run has ended. */
  private static String refusedBy(Throwable e) {
    Throwable t = e instanceof java.util.concurrent.CompletionException && e.getCause() != null ? e.getCause() : e;
    return t instanceof Control.Refused ? t.getMessage() : "the run did not answer (it has ended)";
  }

  /** The control a request describes; IllegalArgumentException naming the field when it is not one. */
  private Control control(String what, JsonNode request) {
    List<String> vms = scenario.vms().stream().map(Settings.Vm::name).toList();
    String target = request.path("target").asText("");
    if (!vms.contains(target)) throw new IllegalArgumentException("target: unknown VM '" + target + "'; expected one of " + vms);
    switch (what) {
      case "fault" -> {
        String kindName = request.path("kind").asText("");
        FaultPlan.Kind kind = FaultPlan.Kind.named(kindName).filter(FaultPlan.Kind::inOneJvm).orElseThrow(() -> new IllegalArgumentException(
            "kind: unknown fault kind '" + kindName + "'; expected one of " + kindNames()));
        long heal = request.hasNonNull("heal_after") ? duration(request.get("heal_after").asText())
            : defaultHealNanos(kind);
        if (heal == 0 && kind.heal() == FaultPlan.Kind.Heal.DURATION) {
          throw new IllegalArgumentException("heal_after: expected a duration > 0 for " + kind.label());
        }
        if (heal > 0 && kind.heal() == FaultPlan.Kind.Heal.NONE) {
          throw new IllegalArgumentException("heal_after: a " + kind.label() + " restarts at once, expected none");
        }
        if (kind.onChannel() && !scenario.faults().channelFaulted(target)) { // the channel exists from the start
          throw new IllegalArgumentException("kind: " + kind.label() + " needs a message fault on " + target
              + " planned in the scenario (its guest-to-vGPU channel is built at the start)");
        }
        if (kind == FaultPlan.Kind.CORE_OFFLINE && scenario.host().cores() < 2) {
          throw new IllegalArgumentException("kind: core-offline needs at least 2 cores");
        }
        if (kind == FaultPlan.Kind.MEMORY_PRESSURE && !scenario.memoryPolicy().needs(PolicyInput.GTT_COPIES)) {
          throw new IllegalArgumentException("kind: memory-pressure needs a slot memory policy (static-384 ... "
              + "static-2048, gballoon); memory.policy = " + scenario.memoryPolicy().spec().name()
              + " has no shared capacity to shrink");
        }
        return new Control.Fault(kind, target, heal);
      }
      case "weight" -> {
        JsonNode v = request.path("value");
        if (!v.canConvertToInt() || !v.isIntegralNumber() || v.asInt() <= 0) {
          throw new IllegalArgumentException("value: expected a whole weight > 0, got " + v);
        }
        return new Control.Weight(target, v.asInt());
      }
      default -> {
        JsonNode v = request.path("value");
        if (!v.isNumber() || !(v.asDouble() > 0 && v.asDouble() <= 1)) {
          throw new IllegalArgumentException("value: expected a share in (0, 1], got " + v);
        }
        return new Control.Share(target, v.asDouble());
      }
    }
  }

  /** The fault kinds, as the page lists them. */
  static List<String> kindNames() {
    return java.util.Arrays.stream(FaultPlan.Kind.values()).filter(FaultPlan.Kind::inOneJvm).map(FaultPlan.Kind::label)
        .toList();
  }

  private static long duration(String text) {
    try {
      if (!text.trim().matches("[0-9.]+\\s*[a-zA-Z]+")) throw new ConfigException.Generic("no unit");
      return ConfigFactory.parseString("d = \"" + text.replace("\"", "") + "\"").getDuration("d").toNanos();
    } catch (ConfigException e) {
      throw new IllegalArgumentException("heal_after: expected a duration >= 0 with a unit, e.g. 2s, got '" + text
          + "'");
    }
  }

  private static ObjectNode ok() {
    return JSON.createObjectNode().put("ok", true);
  }

  private static ObjectNode error(String message) {
    return JSON.createObjectNode().put("error", message);
  }

  private static CompletionStage<HttpResponse> bad(String message) {
    return CompletableFuture.completedFuture(answer(400, error(message)));
  }

  private static HttpResponse answer(int status, ObjectNode body) {
    return HttpResponse.create().withStatus(StatusCodes.get(status))
        .withEntity(HttpEntities.create(ContentTypes.APPLICATION_JSON, body.toString()));
  }

  static String seconds(long nanos) {
    return String.format(Locale.ROOT, "%s", nanos / 1e9);
  }
}
