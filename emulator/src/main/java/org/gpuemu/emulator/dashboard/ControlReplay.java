package org.gpuemu.emulator.dashboard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.emulator.config.FaultPlan;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.run.Control;

/**
 * {@code run S --controls FILE}: the controls a run recorded in its summary.json ({@code controls}: faults, weights,
 * shares, each at its model time), to apply to this run at the same model times, so that a run steered from the
 * dashboard is replayed exactly. Pauses are not replayed (they change no figure). Every problem is one line with its
 * path in the file, all reported at once.
 */
final class ControlReplay {
  private ControlReplay() {}

  static List<Control.Planned> read(Path file, Settings.Scenario scenario) throws ConfigProblems {
    if (!Files.isRegularFile(file)) throw ConfigProblems.of("--controls " + file + ": no such file");
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(Files.readString(file));
    } catch (IOException e) {
      throw ConfigProblems.of("--controls " + file + ": cannot read it as JSON (" + firstLine(e) + ")");
    }
    JsonNode list = root == null ? null : root.isArray() ? root : root.get("controls");
    if (list == null || !list.isArray()) {
      throw ConfigProblems.of("--controls " + file + ": expected a summary.json with a 'controls' list");
    }
    List<String> vms = scenario.vms().stream().map(Settings.Vm::name).toList();
    List<String> problems = new ArrayList<>();
    List<Control.Planned> planned = new ArrayList<>();
    for (int i = 0; i < list.size(); i++) {
      JsonNode c = list.get(i);
      String where = file + ": controls[" + i + "].";
      String what = c.path("what").asText("");
      if (what.equals("pause")) continue;
      int before = problems.size();
      String target = c.path("target").asText("");
      if (!vms.contains(target)) problems.add(where + "target: unknown VM '" + target + "'; expected one of " + vms);
      double at = c.path("at_s").asDouble(-1);
      if (!c.path("at_s").isNumber() || at < 0 || at * 1e9 >= scenario.durationNanos()) {
        problems.add(where + "at_s: expected a model time in seconds within the run [0, "
            + scenario.durationNanos() / 1e9 + "), got " + c.path("at_s"));
      }
      Control control = switch (what) {
        case "fault" -> fault(c, target, where, problems);
        case "weight" -> {
          JsonNode v = c.path("value");
          if (!v.isIntegralNumber() || v.asInt() <= 0) problems.add(where + "value: expected a whole weight > 0");
          yield new Control.Weight(target, v.asInt());
        }
        case "share" -> {
          double v = c.path("value").asDouble(-1);
          if (!(v > 0 && v <= 1)) problems.add(where + "value: expected a share in (0, 1]");
          yield new Control.Share(target, v);
        }
        default -> {
          problems.add(where + "what: expected fault, weight, share or pause, got '" + what + "'");
          yield null;
        }
      };
      if (problems.size() == before) planned.add(new Control.Planned(Math.round(at * 1e9), control));
    }
    if (!problems.isEmpty()) throw new ConfigProblems(problems);
    return planned;
  }

  private static Control fault(JsonNode c, String target, String where, List<String> problems) {
    String kind = c.path("kind").asText("");
    FaultPlan.Kind k = FaultPlan.Kind.named(kind).filter(FaultPlan.Kind::inOneJvm).orElse(null);
    if (k == null) problems.add(where + "kind: unknown fault kind '" + kind + "'; expected one of "
        + RemoteControl.kindNames());
    double heal = c.path("heal_after_s").asDouble(-1);
    if (!c.path("heal_after_s").isNumber() || heal < 0) problems.add(where + "heal_after_s: expected seconds >= 0");
    return k == null ? null : new Control.Fault(k, target, Math.round(heal * 1e9));
  }

  private static String firstLine(Exception e) {
    String m = String.valueOf(e.getMessage());
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl);
  }
}
