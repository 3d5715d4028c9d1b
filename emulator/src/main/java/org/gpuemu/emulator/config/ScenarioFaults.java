package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Reads a run's {@link FaultPlan} from its three sources, in this order: the scenario's {@code faults} list, the
 * command line's {@code --fault}s, and the faults drawn from the run's seed ({@code --faults random}). Every problem
 * goes to {@code problems} with its key path ({@code scenario.faults[0].kind}) or option.
 */
final class ScenarioFaults {
  /** A fault's keys (reference.conf: key-lists.fault). */
  private static final Set<String> KEYS = KeyLists.keys("fault");

  private ScenarioFaults() {}

  /**
   * The run the faults are for: its VMs by name, its duration and seed, and whether its memory policy has slots (a
   * random plan draws memory pressure only then).
   */
  record Run(List<String> vms, long durationNanos, long seed, boolean slotMemory) {}

  /**
   * The faults of {@code run} from the scenario ({@code merged} with its defaults, {@code user} as written) and the
   * command line.
   */
  static FaultPlan read(Config merged, Config user, Run run, FaultPlan.Cli cli, BiConsumer<String, String> problems) {
    List<String> vms = run.vms();
    long durationNanos = run.durationNanos();
    FaultPlan.Defaults defaults = new FaultPlan.Defaults(merged.getDuration("fault-defaults.tdr-delay").toNanos(),
        merged.getDuration("fault-defaults.vcpu-stall").toNanos(),
        merged.getDuration("fault-defaults.reboot-after").toNanos(),
        merged.getDuration("fault-defaults.emulator-stall").toNanos(),
        merged.getDuration("fault-defaults.message-fault").toNanos(),
        merged.getDuration("fault-defaults.core-offline").toNanos(),
        merged.getDuration("fault-defaults.memory-pressure").toNanos());
    FaultPlan.Channel channel = new FaultPlan.Channel(merged.getDuration("fault-defaults.guest-timeout").toNanos(),
        merged.getInt("fault-defaults.guest-attempts"), merged.getDuration("fault-defaults.message-delay").toNanos());
    if (channel.timeoutNanos() <= 0) problems.accept("scenario.fault-defaults.guest-timeout", "expected > 0, e.g. 200ms");
    if (channel.attempts() < 1 || channel.attempts() > 16) {
      problems.accept("scenario.fault-defaults.guest-attempts", "expected 1 to 16, got " + channel.attempts());
    }
    if (channel.delayNanos() <= 0) problems.accept("scenario.fault-defaults.message-delay", "expected > 0, e.g. 300ms");
    if (defaults.memoryPressureNanos() <= 0) {
      problems.accept("scenario.fault-defaults.memory-pressure", "expected a duration > 0, e.g. 10s");
    }
    long pressureBytes = merged.getBytes("fault-defaults.memory-pressure-size");
    if (pressureBytes <= 0) {
      problems.accept("scenario.fault-defaults.memory-pressure-size", "expected a size > 0, e.g. 384MiB");
      pressureBytes = FaultPlan.PRESSURE_BYTES;
    }
    List<FaultPlan.Fault> faults = new ArrayList<>();
    if (user.hasPath("faults")) faults.addAll(fromList(user.getValue("faults"), vms, durationNanos, defaults, problems));
    for (String spec : cli.faults()) {
      FaultPlan.parseCli(spec, vms, durationNanos, defaults, problems).ifPresent(faults::add);
    }
    if (cli.mode() != null) {
      if (!cli.mode().equals("random")) {
        problems.accept("--faults " + cli.mode(), "expected 'random'");
      } else if (cli.rate() == null) {
        problems.accept("--faults random", "needs --fault-rate N/DURATION, e.g. 1/10s");
      } else {
        FaultPlan.interval(cli.rate()).ifPresentOrElse(
            every -> faults.addAll(FaultPlan.random(run.seed(), every, durationNanos, vms, defaults,
                drawable(merged, run.slotMemory()))),
            () -> problems.accept("--fault-rate " + cli.rate(), "expected N/DURATION with N > 0, e.g. 1/10s"));
      }
    } else if (cli.rate() != null) {
      problems.accept("--fault-rate " + cli.rate(), "only with --faults random");
    }
    return new FaultPlan(List.of(), channel, pressureBytes).plus(faults);
  }

  /**
   * The kinds a random plan draws on this host: the model's, but a core-offline only with a core to move to, and a
   * memory pressure only under a slot memory policy ({@code slotMemory}).
   */
  private static List<FaultPlan.Kind> drawable(Config merged, boolean slotMemory) {
    boolean cores;
    try {
      cores = merged.getInt("host.cores") >= 2;
    } catch (com.typesafe.config.ConfigException e) {
      cores = true; // not a number: the loader reports host.cores itself
    }
    boolean many = cores;
    return FaultPlan.Kind.drawn().stream().filter(k -> many || k != FaultPlan.Kind.CORE_OFFLINE)
        .filter(k -> slotMemory || k != FaultPlan.Kind.MEMORY_PRESSURE).toList();
  }

  private static List<FaultPlan.Fault> fromList(ConfigValue value, List<String> vms, long durationNanos,
      FaultPlan.Defaults defaults, BiConsumer<String, String> problems) {
    String path = "scenario.faults";
    List<FaultPlan.Fault> faults = new ArrayList<>();
    if (value.valueType() != ConfigValueType.LIST) {
      problems.accept(path, "expected a list of faults, e.g. [ { at = 2s, kind = gpu-hang, target = vm2 } ]");
      return faults;
    }
    ConfigList list = (ConfigList) value;
    for (int i = 0; i < list.size(); i++) {
      String at = path + "[" + i + "]";
      if (list.get(i).valueType() != ConfigValueType.OBJECT) {
        problems.accept(at, "expected an object { at = 2s, kind = gpu-hang, target = vm2, heal-after = 1s }");
        continue;
      }
      ConfigObject o = (ConfigObject) list.get(i);
      boolean known = true;
      for (String key : o.keySet()) {
        if (!KEYS.contains(key)) {
          problems.accept(at + "." + key, "unknown key; expected one of " + new TreeSet<>(KEYS));
          known = false;
        }
      }
      for (String key : List.of("at", "kind", "target")) {
        if (!o.containsKey(key)) {
          problems.accept(at + "." + key, "missing; a fault needs at, kind and target");
          known = false;
        }
      }
      if (!known) continue;
      FaultPlan.check(new FaultPlan.Entry(text(o, "kind"), text(o, "at"), text(o, "target"),
          o.containsKey("heal-after") ? text(o, "heal-after") : null), vms, durationNanos, defaults,
          (key, message) -> problems.accept(at + "." + key, message)).ifPresent(faults::add);
    }
    return faults;
  }

  private static String text(ConfigObject o, String key) {
    return String.valueOf(o.get(key).unwrapped());
  }
}
