package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigList;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigUtil;
import com.typesafe.config.ConfigValue;
import com.typesafe.config.ConfigValueType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.gpuemu.workloads.FrameReplay;
import org.gpuemu.workloads.FrameTrace;
import org.gpuemu.workloads.GamePhase;
import org.gpuemu.workloads.GameWorkload;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.NsysGpuTrace;
import org.gpuemu.workloads.PhaseSequence;
import org.gpuemu.workloads.Scene;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.StepLoop;
import org.gpuemu.workloads.TraceException;
import org.gpuemu.workloads.TraceReplay;
import org.gpuemu.workloads.Variation;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * Reads {@code scenario.workloads}: workloads a scenario defines in HOCON instead of Java (frame loops, compute loops,
 * replayed traces, sequences), built into the same {@link Workload} types the catalog's are, so the emulator runs
 * them unchanged. Keys and their defaults are {@code gpuemu.workload-kinds.<kind>} in reference.conf; a key that is
 * not there is an error. Every problem goes to {@code problem} with its full key path; a workload with a problem is
 * left out of the table but stays declared, so the VMs naming it are not reported a second time.
 */
final class ScenarioWorkloads {
  static final String ROOT = "scenario.workloads";
  /** More steps per iteration than this is a typo (each is an object in memory). */
  static final long MAX_STEPS = 1_000_000;

  /**
   * What a scenario defines.
   *
   * @param workloads the workloads that were built, by name
   * @param declared  every name under scenario.workloads, built or not
   */
  record Result(Map<String, Workload> workloads, Set<String> declared) {}

  private final Config kinds;
  /** The kinds of workload: those whose keys {@code kinds} (reference.conf) declares. */
  private final Set<String> kindNames;
  private final Path folder;
  private final int gpuSms;
  private final BiConsumer<String, String> problem;
  private final Map<String, Workload> built = new LinkedHashMap<>();
  private final Set<String> declared = new LinkedHashSet<>();
  private final Set<String> sequences = new LinkedHashSet<>();
  private int problems;
  /** The typed readers, reporting through {@code problem} (so that {@code problems} counts their problems too). */
  private final TypedValues values;

  private ScenarioWorkloads(Config kinds, Path folder, int gpuSms, BiConsumer<String, String> problem) {
    this.kinds = kinds;
    this.kindNames = kinds.root().keySet();
    this.folder = folder;
    this.gpuSms = gpuSms;
    this.problem = (path, message) -> {
      problems++;
      problem.accept(path, message);
    };
    this.values = new TypedValues(this.problem);
  }

  /**
   * Reads {@code workloads} (the scenario's {@code workloads} value, null when it has none). {@code kinds} is
   * reference.conf's {@code gpuemu.workload-kinds}, trace files are resolved against {@code scenarioFile}'s folder,
   * and traced GPU times are scaled to {@code gpuSms}.
   */
  static Result read(ConfigValue workloads, Config kinds, Path scenarioFile, int gpuSms,
      BiConsumer<String, String> problem) {
    Path folder = scenarioFile.toAbsolutePath().getParent();
    return new ScenarioWorkloads(kinds, folder, gpuSms, problem).read(workloads);
  }

  private Result read(ConfigValue value) {
    if (value == null) return new Result(Map.of(), Set.of());
    if (value.valueType() != ConfigValueType.OBJECT) {
      problem.accept(ROOT, "expected an object keyed by workload name, e.g. workloads { my-game { kind = frame-loop } }");
      return new Result(Map.of(), Set.of());
    }
    ConfigObject all = (ConfigObject) value;
    declared.addAll(all.keySet());
    for (String name : TypedValues.sortedByLine(all)) {
      String path = ROOT + "." + ConfigUtil.joinPath(name);
      ConfigValue w = all.get(name);
      if (WorkloadCatalog.contains(name)) {
        problem.accept(path, "'" + name + "' is a catalog workload's name; give the scenario's own another (see `list`)");
        continue;
      }
      if (w.valueType() != ConfigValueType.OBJECT) {
        problem.accept(path, "expected an object with kind = " + String.join(" | ", new TreeSet<>(kindNames))
            + " and that kind's keys");
        continue;
      }
      ConfigObject o = (ConfigObject) w;
      ConfigValue kindValue = o.get("kind");
      String kind = kindValue == null ? null : String.valueOf(kindValue.unwrapped());
      if (kind == null || kindValue.valueType() != ConfigValueType.STRING || !kindNames.contains(kind)) {
        problem.accept(path + ".kind", "expected one of " + new TreeSet<>(kindNames) + ", got "
            + (kindValue == null ? "nothing" : kindValue.render()));
        continue;
      }
      if (kind.equals("sequence")) {
        sequences.add(name);
        continue;
      }
      build(name, kind, o, path);
    }
    for (String name : sequences) build(name, "sequence", (ConfigObject) all.get(name), ROOT + "." + ConfigUtil.joinPath(name));
    return new Result(Map.copyOf(built), Set.copyOf(declared));
  }

  private void build(String name, String kind, ConfigObject o, String path) {
    ConfigObject template = kinds.getObject(kind);
    if (!values.knownKeys(o, template, path, Set.of("kind"))) return;
    Config c = o.toConfig().withFallback(template.toConfig());
    int before = problems;
    Workload w = switch (kind) {
      case "frame-loop" -> frameLoop(name, c, path);
      case "compute-loop" -> computeLoop(name, c, path);
      case "trace" -> trace(name, c, o, path);
      default -> sequence(name, c, path);
    };
    if (w != null && problems == before) built.put(name, w);
  }

  // ---------------------------------------------------------------- frame-loop

  /** A phase's keys (reference.conf: key-lists.frame-loop-phase). */
  private static final Set<String> PHASE_KEYS = KeyLists.keys("frame-loop-phase");

  private Workload frameLoop(String name, Config c, String path) {
    String description = values.description(c, path, "frame loop defined in the scenario");
    boolean loop = values.bool(c, "loop", path);
    ConfigList phases = values.list(c, "phases", path);
    if (phases == null) return null;
    List<GamePhase> out = new ArrayList<>();
    // the workload's own keys first: a bad one is reported once, at its path, not at every phase inheriting it
    GamePhase endless = phase(c, path, "play", Long.MAX_VALUE);
    if (endless == null) return null;
    if (phases.isEmpty()) out.add(endless);
    for (int i = 0; i < phases.size(); i++) {
      String at = path + ".phases[" + i + "]";
      if (phases.get(i).valueType() != ConfigValueType.OBJECT) {
        problem.accept(at, "expected an object { duration = 10s, ... } with any of " + new TreeSet<>(PHASE_KEYS));
        continue;
      }
      ConfigObject po = (ConfigObject) phases.get(i);
      if (!values.knownKeys(po, PHASE_KEYS, at)) continue;
      if (!po.containsKey("duration")) {
        problem.accept(at + ".duration", "expected the phase's duration (e.g. 10s): every listed phase needs one");
        continue;
      }
      Config pc = po.toConfig().withFallback(c.withoutPath("phases"));
      long duration = values.nanos(pc, "duration", at, false);
      String phaseName = po.containsKey("name") ? values.text(pc, "name", at) : "phase" + (i + 1);
      GamePhase p = phase(pc, at, phaseName, duration);
      if (p != null) out.add(p);
    }
    return out.isEmpty() ? null : new GameWorkload(name, description, out, loop);
  }

  /** One phase from the keys of {@code c} (a phase's own over the workload's). */
  private GamePhase phase(Config c, String path, String name, long durationNanos) {
    int before = problems;
    double fps = values.real(c, "fps", path);
    if (!(fps >= 0)) problem.accept(path + ".fps", "expected a frame rate >= 0 (0: unpaced), got " + fps);
    long cpu = values.nanos(c, "cpu", path, false);
    long gpu = values.nanos(c, "gpu", path, false);
    long batches = values.integer(c, "batches", path, 0);
    Variation variation = variation(c, path);
    if (problems > before || durationNanos <= 0) return null;
    Scene scene = Scene.paced(fps, cpu, gpu);
    return new GamePhase(name, durationNanos, scene, variation,
        batches == 0 ? WorkloadCatalog.batchesOf(scene) : (int) batches);
  }

  private Variation variation(Config c, String path) {
    String at = path + ".variation";
    if (c.getValue("variation").valueType() != ConfigValueType.OBJECT) {
      problem.accept(at, "expected an object with keys " + new TreeSet<>(kinds.getObject("frame-loop.variation").keySet()));
      return null;
    }
    ConfigObject template = kinds.getObject("frame-loop.variation");
    if (!values.knownKeys(c.getObject("variation"), template, at, Set.of())) return null;
    Config v = c.getConfig("variation");
    double frame = values.real(v, "frame", at);
    double low = values.real(v, "scene-low", at);
    double high = values.real(v, "scene-high", at);
    long min = values.nanos(v, "scene-min", at, false);
    long max = values.nanos(v, "scene-max", at, false);
    boolean ok = true;
    if (!(frame >= 0 && frame < 1)) ok = values.bad(at + ".frame", "expected a fraction in [0, 1), got " + frame);
    if (!(low > 0)) ok = values.bad(at + ".scene-low", "expected a factor > 0, got " + low);
    if (!(high >= low)) ok = values.bad(at + ".scene-high", "expected a factor >= scene-low (" + low + "), got " + high);
    if (min > 0 && max > 0 && max < min) ok = values.bad(at + ".scene-max", "expected a duration >= scene-min");
    return ok && min > 0 && max > 0 ? new Variation(frame, low, high, min, max) : null;
  }

  // ---------------------------------------------------------------- compute-loop

  private Workload computeLoop(String name, Config c, String path) {
    String description = values.description(c, path, "compute loop defined in the scenario");
    Map<String, KernelSpec> kernels = kernels(name, c, path);
    ConfigList steps = values.list(c, "steps", path);
    if (kernels == null || steps == null) return null;
    if (steps.isEmpty()) {
      problem.accept(path + ".steps", "expected at least one step, e.g. [{ cpu = 50us }, { launch = k, count = 2 }, "
          + "{ copy = 100us }]");
      return null;
    }
    ConfigObject stepTemplate = kinds.getObject("compute-loop.step");
    // a step's keys (reference.conf: key-lists.compute-loop-step): its actions are those the step's defaults lack
    Set<String> stepKeys = new TreeSet<>(KeyLists.keys("compute-loop-step"));
    Set<String> stepActions = new TreeSet<>(stepKeys);
    stepActions.removeAll(stepTemplate.keySet());
    List<Step> iteration = new ArrayList<>();
    boolean launches = false;
    boolean waits = false;
    int before = problems;
    for (int i = 0; i < steps.size(); i++) {
      String at = path + ".steps[" + i + "]";
      if (steps.get(i).valueType() != ConfigValueType.OBJECT) {
        problem.accept(at, "expected an object with one of " + stepActions + " (and "
            + String.join(", ", new TreeSet<>(stepTemplate.keySet())) + ")");
        continue;
      }
      ConfigObject so = (ConfigObject) steps.get(i);
      if (!values.knownKeys(so, stepKeys, at)) continue;
      List<String> actions = so.keySet().stream().filter(stepActions::contains).toList();
      if (actions.size() != 1) {
        problem.accept(at, "expected exactly one of " + stepActions + ", got "
            + (actions.isEmpty() ? "none" : new TreeSet<>(actions)));
        continue;
      }
      Config sc = so.toConfig().withFallback(stepTemplate.toConfig());
      long count = values.integer(sc, "count", at, 1);
      String action = actions.get(0);
      Step step = step(name, sc, action, at, kernels, path);
      if (step == null || count < 1) continue;
      if (iteration.size() + count > MAX_STEPS) {
        problem.accept(at + ".count", "expected at most " + MAX_STEPS + " steps per iteration in all, got more");
        return null;
      }
      for (long n = 0; n < count; n++) iteration.add(step);
      launches |= step instanceof Step.LaunchKernel;
      waits |= step instanceof Step.SyncCall;
    }
    if (problems > before) return null;
    if (launches && !waits) {
      problem.accept(path + ".steps", "expected a sync or copy step in an iteration that launches kernels: without "
          + "one the guest queues launches without bound whenever the GPU is slower than its loop");
      return null;
    }
    return new StepLoop(name, description, iteration);
  }

  /** One step of a compute loop's iteration: its action ({@code cpu}, {@code launch}, ...) read from {@code sc}. */
  private Step step(String name, Config sc, String action, String at, Map<String, KernelSpec> kernels, String path) {
    return switch (action) {
      case "cpu" -> positive(sc, action, at, Step.CpuBurst::new);
      case "sleep" -> positive(sc, action, at, Step.Sleep::new);
      case "copy" -> positive(sc, action, at, n -> new Step.SyncCall(new KernelSpec(name + "/copy", KernelType.CD, 1, n)));
      case "copy-async" -> positive(sc, action, at,
          n -> new Step.LaunchKernel(new KernelSpec(name + "/copy", KernelType.CD, 1, n)));
      default -> {
        String k = values.text(sc, action, at);
        KernelSpec spec = kernels.get(k);
        if (k != null && spec == null) {
          problem.accept(at + "." + action, "expected a kernel of " + path + ".kernels " + kernels.keySet() + ", got '" + k + "'");
        }
        yield spec == null ? null : action.equals("launch") ? new Step.LaunchKernel(spec) : new Step.SyncCall(spec);
      }
    };
  }

  private Map<String, KernelSpec> kernels(String workload, Config c, String path) {
    String at = path + ".kernels";
    if (c.getValue("kernels").valueType() != ConfigValueType.OBJECT) {
      problem.accept(at, "expected an object keyed by kernel name, e.g. kernels { conv { type = TC, blocks = 512, "
          + "duration = 300us } }");
      return null;
    }
    ConfigObject template = kinds.getObject("compute-loop.kernel");
    Map<String, KernelSpec> out = new LinkedHashMap<>();
    int before = problems;
    for (Map.Entry<String, ConfigValue> e : c.getObject("kernels").entrySet()) {
      String kat = at + "." + ConfigUtil.joinPath(e.getKey());
      if (e.getValue().valueType() != ConfigValueType.OBJECT) {
        problem.accept(kat, "expected an object with keys " + new TreeSet<>(template.keySet()));
        continue;
      }
      if (!values.knownKeys((ConfigObject) e.getValue(), template, kat, Set.of())) continue;
      Config k = ((ConfigObject) e.getValue()).toConfig().withFallback(template.toConfig());
      KernelType type = values.type(k, "type", kat);
      long blocks = values.integer(k, "blocks", kat, 1);
      long duration = values.nanos(k, "duration", kat, false);
      if (type != null && blocks >= 1 && duration > 0) {
        out.put(e.getKey(), new KernelSpec(workload + "/" + e.getKey(), type, (int) blocks, duration));
      }
    }
    return problems > before ? null : out;
  }

  private Step positive(Config c, String key, String path, java.util.function.LongFunction<Step> make) {
    long n = values.nanos(c, key, path, false);
    return n > 0 ? make.apply(n) : null;
  }

  // ---------------------------------------------------------------- trace

  /** The keys only one format of trace reads (reference.conf: key-lists.trace-nsys, trace-frames). */
  private static final Set<String> NSYS_ONLY = KeyLists.keys("trace-nsys");
  private static final Set<String> FRAMES_ONLY = KeyLists.keys("trace-frames");

  private Workload trace(String name, Config c, ConfigObject own, String path) {
    String format = values.text(c, "format", path);
    String file = values.text(c, "file", path);
    long sms = values.integer(c, "sms", path, 1);
    if (format == null || file == null) return null;
    if (!format.equals("nsys") && !format.equals("frames")) {
      problem.accept(path + ".format", "expected nsys (`nsys stats --report cuda_gpu_trace --format csv`) or frames "
          + "(start_ms,cpu_ms,gpu_ms), got '" + format + "'");
      return null;
    }
    for (String key : own.keySet()) {
      if ((format.equals("nsys") ? FRAMES_ONLY : NSYS_ONLY).contains(key)) {
        problem.accept(path + "." + key, "applies to format = " + (format.equals("nsys") ? "frames" : "nsys")
            + " only; this trace's format is " + format);
      }
    }
    if (file.isBlank()) {
      problem.accept(path + ".file", "expected the trace's CSV file, relative to the scenario's folder or absolute");
      return null;
    }
    Path resolved = folder.resolve(file).normalize();
    List<String> lines;
    try {
      lines = Files.readAllLines(resolved, StandardCharsets.UTF_8);
    } catch (IOException | java.io.UncheckedIOException e) {
      problem.accept(path + ".file", "cannot read '" + resolved + "' (a relative file is resolved against the "
          + "scenario's folder): " + e.getClass().getSimpleName());
      return null;
    }
    String description = values.description(c, path, format + " trace " + file);
    try {
      if (format.equals("frames")) {
        long batches = values.integer(c, "batches", path, 0);
        List<FrameTrace.Frame> frames = FrameTrace.parse(lines, resolved.toString());
        return sms < 1 || batches < 0 ? null
            : new FrameReplay(name, description, frames, (int) sms, gpuSms, (int) batches);
      }
      long sleepAbove = values.nanos(c, "sleep-above", path, true);
      long minGap = values.nanos(c, "min-gap", path, true);
      KernelType type = values.type(c, "type", path);
      Pattern tensor = null;
      String match = values.text(c, "tensor-match", path);
      if (match != null && !match.isEmpty()) {
        try {
          tensor = Pattern.compile(match);
        } catch (PatternSyntaxException e) {
          problem.accept(path + ".tensor-match", "expected a regular expression: " + e.getDescription());
        }
      }
      List<NsysGpuTrace.Op> ops = NsysGpuTrace.parse(lines, resolved.toString());
      if (sms < 1 || sleepAbove < 0 || minGap < 0 || type == null) return null;
      return TraceReplay.workload(name, description, ops,
          new TraceReplay.Options((int) sms, gpuSms, sleepAbove, minGap, type, tensor));
    } catch (TraceException e) {
      for (String p : e.problems()) problem.accept(path + ".file", p);
      return null;
    }
  }

  // ---------------------------------------------------------------- sequence

  /** A sequence phase's keys (reference.conf: key-lists.sequence-phase). */
  private static final Set<String> SEQUENCE_PHASE_KEYS = KeyLists.keys("sequence-phase");

  private Workload sequence(String name, Config c, String path) {
    String description = values.description(c, path, "sequence defined in the scenario");
    boolean loop = values.bool(c, "loop", path);
    ConfigList phases = values.list(c, "phases", path);
    if (phases == null) return null;
    if (phases.isEmpty()) {
      problem.accept(path + ".phases", "expected at least one phase, e.g. [{ workload = dirt3, duration = 10s }]");
      return null;
    }
    List<PhaseSequence.Phase> out = new ArrayList<>();
    for (int i = 0; i < phases.size(); i++) {
      String at = path + ".phases[" + i + "]";
      if (phases.get(i).valueType() != ConfigValueType.OBJECT) {
        problem.accept(at, "expected an object { workload = <name>, duration = 10s }");
        continue;
      }
      ConfigObject po = (ConfigObject) phases.get(i);
      if (!values.knownKeys(po, SEQUENCE_PHASE_KEYS, at)) continue;
      Config pc = po.toConfig();
      if (!pc.hasPath("workload") || !pc.hasPath("duration")) {
        problem.accept(at, "expected both workload and duration, got " + new TreeSet<>(po.keySet()));
        continue;
      }
      String w = values.text(pc, "workload", at);
      long duration = values.nanos(pc, "duration", at, false);
      if (w == null || duration <= 0) continue;
      Workload workload = sequences.contains(w) ? null : built.get(w);
      if (workload == null && WorkloadCatalog.contains(w)) workload = WorkloadCatalog.get(w);
      if (workload == null) {
        if (sequences.contains(w)) {
          problem.accept(at + ".workload", "'" + w + "' is a sequence; a phase runs a catalog workload or one of "
              + "this scenario's that is not a sequence");
        } else if (!declared.contains(w)) {
          problem.accept(at + ".workload", "expected a catalog workload (see `list`) or one of this scenario's, got '"
              + w + "'");
        } // else: that workload has problems of its own, reported at its path
        continue;
      }
      if (workload.threads() != 1) {
        problem.accept(at + ".workload", "'" + w + "' runs " + workload.threads() + " threads; a phase runs one");
        continue;
      }
      out.add(new PhaseSequence.Phase(workload, duration));
    }
    return out.size() == phases.size() ? new PhaseSequence(name, description, out, loop) : null;
  }
}
