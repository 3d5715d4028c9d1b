package org.gpuemu.emulator.explore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigRenderOptions;
import org.gpuemu.emulator.config.FaultPlan;

/**
 * One run spelled out: the scenario file it starts from, its seed, emulated duration, tie order, the faults it
 * injects (every one written out, none drawn) and the VMs it keeps (all when {@code vms} is null). Its
 * {@link #text} is a scenario file that {@code run} replays exactly: the original file's text with these values set
 * after it (HOCON: a later value wins; {@code vms = null} first, so the VMs are replaced rather than merged).
 */
public record Plan(Path file, long seed, long durationNanos, long orderSeed, List<FaultPlan.Fault> faults,
    List<String> vms) {
  public Plan {
    faults = List.copyOf(faults);
    vms = vms == null ? null : List.copyOf(vms);
  }

  Plan withFaults(List<FaultPlan.Fault> f) {
    return new Plan(file, seed, durationNanos, orderSeed, f, vms);
  }

  Plan withDuration(long nanos) {
    List<FaultPlan.Fault> kept = faults.stream().filter(f -> f.atNanos() < nanos).toList();
    return new Plan(file, seed, nanos, orderSeed, kept, vms);
  }

  Plan withOrderSeed(long s) {
    return new Plan(file, seed, durationNanos, s, faults, vms);
  }

  Plan withVms(List<String> names) {
    List<FaultPlan.Fault> kept = faults.stream().filter(f -> names.contains(f.target())).toList();
    return new Plan(file, seed, durationNanos, orderSeed, kept, names);
  }

  /** The scenario file's text that replays this run, with {@code comment} lines (the finding, the commands) on top. */
  public String text(List<String> comment) throws IOException {
    StringBuilder out = new StringBuilder();
    for (String line : comment) out.append("# ").append(line).append('\n');
    out.append('\n').append(Files.readString(file)).append('\n');
    out.append("\n# ---- set by explore's shrinker: the run this file replays ----\n");
    out.append("scenario.seed = ").append(seed).append('\n');
    out.append("scenario.duration = ").append(nanos(durationNanos)).append('\n');
    out.append("# under the conservative order the figures are the same at any time scale; --scale 1 to watch it\n");
    out.append("scenario.time-scale = 1000\n");
    out.append("scenario.fidelity.order-seed = ").append(orderSeed).append('\n');
    out.append("scenario.faults = [\n");
    for (FaultPlan.Fault f : faults) {
      out.append("  { at = ").append(nanos(f.atNanos())).append(", kind = ").append(f.kind().label())
          .append(", target = ").append(quoted(f.target()));
      if (f.kind().heal() != FaultPlan.Kind.Heal.NONE) out.append(", heal-after = ").append(nanos(f.healAfterNanos()));
      out.append(" }\n");
    }
    out.append("]\n");
    if (vms != null) {
      Config user = ConfigFactory.parseFile(file.toFile()).resolve();
      out.append("scenario.vms = null\n");
      out.append("scenario.vms {\n");
      for (String vm : vms) {
        out.append("  ").append(quoted(vm)).append(' ').append(user.getObject("scenario.vms").get(vm)
            .render(ConfigRenderOptions.concise())).append('\n');
      }
      out.append("}\n");
    }
    return out.toString();
  }

  /** The VMs the file declares under {@code scenario.vms}, in file order; empty when it declares them otherwise. */
  static List<String> fileVms(Path file) {
    Config user = ConfigFactory.parseFile(file.toFile()).resolve();
    if (!user.hasPath("scenario.vms") || user.hasPath("scenario.hosts") || user.hasPath("scenario.trace")) {
      return List.of();
    }
    List<String> names = new ArrayList<>(user.getObject("scenario.vms").keySet());
    names.sort(java.util.Comparator.comparingInt((String n) -> user.getObject("scenario.vms").get(n).origin()
        .lineNumber()).thenComparing(n -> n));
    return names;
  }

  /** A duration HOCON reads back to the nanosecond, in the largest unit that keeps it whole. */
  static String nanos(long n) {
    if (n % 1_000_000_000L == 0) return n / 1_000_000_000L + "s";
    if (n % 1_000_000L == 0) return n / 1_000_000L + "ms";
    if (n % 1_000L == 0) return n / 1_000L + "us";
    return String.format(Locale.ROOT, "%dns", n);
  }

  private static String quoted(String name) {
    return name.matches("[A-Za-z_][A-Za-z0-9_-]*") ? name : com.typesafe.config.ConfigUtil.quoteString(name);
  }
}
