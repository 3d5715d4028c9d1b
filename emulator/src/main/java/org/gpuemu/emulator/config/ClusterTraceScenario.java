package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import org.gpuemu.workloads.ClusterTrace;
import org.gpuemu.workloads.TraceException;

/**
 * A window of Alibaba's GPU-sharing cluster trace ({@link ClusterTrace}) as a scenario of many hosts
 * ({@code scenario.trace}, docs/guides/cluster.md): the block expands into {@code hosts}, {@code workloads} and
 * {@code vms} before the scenario is read, so that they are checked, placed and run as if written by hand. The
 * mapping, written down before any run:
 *
 * <ul>
 *   <li>tasks: the first {@code tasks} tasks created at or after {@code from} (trace seconds) that ask for one GPU
 *       or a share of one ({@code num_gpu = 1}) and are LS or BE (the trace's 107 Burstable and Guaranteed tasks
 *       and its multi-GPU tasks are left out), in creation order; the cluster starts empty at {@code from};
 *   <li>time: a task arrives at {@code (creation_time - from) / compress} and leaves after {@code (deletion_time -
 *       creation_time) / compress} (no deletion time: it runs to the end);
 *   <li>requests: {@code gpu_milli} is the VM's {@code share} (placement) and its {@code weight} ({@code gpu_milli
 *       / 10}, at least 1: what a weighted GPU policy such as credit-hs guarantees it); {@code cpu_milli} is its
 *       CPU request for placement, while the emulated VM has one vCPU (its workload's one thread); its GPU memory
 *       cap is its share of the GPU's memory (the trace gives no GPU memory: a task is assumed to get the memory
 *       of its share, as GPU-sharing systems that partition memory do);
 *   <li>LS (latency-sensitive services) as frame loops at {@code ls-fps}, {@code ls-cpu} of CPU per frame and a GPU
 *       time per frame of {@code gpu_milli / 1000} of what a frame period leaves after its CPU work ({@code 1 /
 *       ls-fps - ls-cpu}): a service uses what it requested (the trace gives no utilization), and a whole-GPU
 *       service alone on its GPU keeps its rate; its SLA is {@code ls-sla-fps} (a frame loop paced at exactly its rate
 *       presents each frame a few µs after a period: an SLA at the rate itself would count half its frames late); BE (best-effort jobs) as the compute loop {@code be-workload}, unpaced (it takes whatever
 *       GPU time it gets);
 *   <li>hosts: the first {@code hosts} nodes of the node list whose GPU model is {@code model}, each with the
 *       node's cores ({@code cpu_milli / 1000}) and GPUs, each GPU with {@code gpu-memory}.
 * </ul>
 */
final class ClusterTraceScenario {
  private ClusterTraceScenario() {}

  /**
   * The {@code hosts}, {@code workloads} and {@code vms} of the window {@code trace} describes (the block with its
   * defaults), read relative to {@code scenarioFile}'s folder; problems go to {@code problems} (key, message).
   */
  static Config expand(Config trace, Path scenarioFile, BiConsumer<String, String> problems) {
    String at = "scenario.trace";
    Path dir = scenarioFile.toAbsolutePath().getParent();
    List<ClusterTrace.Task> tasks;
    List<ClusterTrace.Node> nodes;
    try {
      tasks = ClusterTrace.tasks(read(dir, trace.getString("tasks-file"), at + ".tasks-file", problems),
          trace.getString("tasks-file"));
      nodes = ClusterTrace.nodes(read(dir, trace.getString("nodes-file"), at + ".nodes-file", problems),
          trace.getString("nodes-file"));
    } catch (TraceException e) {
      for (String p : e.problems()) problems.accept(at, p);
      return ConfigFactory.empty();
    } catch (IOException e) {
      return ConfigFactory.empty(); // reported by read
    }
    long from = trace.getDuration("from").toSeconds();
    int count = trace.getInt("tasks");
    double compress = trace.getDouble("compress");
    int hostCount = trace.getInt("hosts");
    String model = trace.getString("model");
    long gpuMemory = trace.getBytes("gpu-memory");
    double fps = trace.getDouble("ls-fps");
    long lsCpu = trace.getDuration("ls-cpu").toNanos();
    double sla = trace.getDouble("ls-sla-fps");
    if (!(sla > 0)) problems.accept(at + ".ls-sla-fps", "expected a frame rate > 0");
    if (!(lsCpu < 1e9 / fps)) problems.accept(at + ".ls-cpu", "expected less CPU per frame than a frame period");
    if (count <= 0) problems.accept(at + ".tasks", "expected a number of tasks > 0, got " + count);
    if (!(compress > 0)) problems.accept(at + ".compress", "expected trace seconds per emulated second > 0");
    if (hostCount <= 0) problems.accept(at + ".hosts", "expected a number of hosts > 0, got " + hostCount);
    if (!(fps > 0)) problems.accept(at + ".ls-fps", "expected a frame rate > 0");
    if (gpuMemory <= 0) problems.accept(at + ".gpu-memory", "expected a size > 0");
    List<ClusterTrace.Task> window = tasks.stream()
        .filter(t -> t.creation() >= from && t.gpus() == 1 && t.gpuMilli() > 0
            && (t.qos().equals("LS") || t.qos().equals("BE")))
        .sorted(Comparator.comparingLong(ClusterTrace.Task::creation).thenComparing(ClusterTrace.Task::name))
        .limit(Math.max(0, count)).toList();
    List<ClusterTrace.Node> hosts = nodes.stream().filter(n -> n.model().equals(model) && n.gpus() > 0)
        .limit(Math.max(0, hostCount)).toList();
    if (window.size() < count) {
      problems.accept(at + ".tasks", "the trace has " + window.size() + " single-GPU LS or BE tasks created at or "
          + "after " + from + " s, fewer than " + count);
    }
    if (hosts.size() < hostCount) {
      TreeSet<String> models = new TreeSet<>();
      for (ClusterTrace.Node n : nodes) models.add(n.model());
      problems.accept(at + ".model", "the node list has " + hosts.size() + " nodes of model '" + model + "', fewer "
          + "than " + hostCount + "; its models: " + models);
    }
    return ConfigFactory.parseString(hocon(trace, hosts, window));
  }

  /**
   * The window as scenario HOCON: a host per node, a frame-loop workload per LS task's GPU share (its share of the
   * frame period its CPU work leaves), and a VM per task over the window's compressed time.
   */
  private static String hocon(Config trace, List<ClusterTrace.Node> hosts, List<ClusterTrace.Task> window) {
    long from = trace.getDuration("from").toSeconds();
    double compress = trace.getDouble("compress");
    long gpuMemory = trace.getBytes("gpu-memory");
    double fps = trace.getDouble("ls-fps");
    long lsCpu = trace.getDuration("ls-cpu").toNanos();
    double sla = trace.getDouble("ls-sla-fps");
    StringBuilder b = new StringBuilder("hosts {\n");
    for (ClusterTrace.Node n : hosts) {
      b.append(String.format(Locale.ROOT, "  \"%s\" { cores = %d, gpus = %d, gpu.memory = %dB }%n", n.name(),
          Math.max(1, n.cpuMilli() / 1000), n.gpus(), gpuMemory));
    }
    b.append("}\nworkloads {\n");
    TreeSet<Long> lsShares = new TreeSet<>();
    for (ClusterTrace.Task t : window) if (t.qos().equals("LS")) lsShares.add(t.gpuMilli());
    for (long milli : lsShares) {
      // its share of the frame period its CPU work leaves: a whole-GPU service (1000) keeps its GPU busy for all of
      // it and still makes its rate alone on the GPU
      long gpu = Math.round(milli / 1000.0 * (1e9 / fps - lsCpu));
      b.append(String.format(Locale.ROOT, "  ls-%d { kind = frame-loop, fps = %s, cpu = %dns, gpu = %dns }%n",
          milli, fps, lsCpu, Math.max(1, gpu)));
    }
    b.append("}\nvms {\n");
    for (ClusterTrace.Task t : window) {
      long start = Math.round((t.creation() - from) / compress * 1e9);
      long stay = t.deletion() > t.creation() ? Math.max(1, Math.round((t.deletion() - t.creation()) / compress * 1e9))
          : 0;
      String workload = t.qos().equals("LS") ? "ls-" + t.gpuMilli() : trace.getString("be-workload");
      b.append(String.format(Locale.ROOT, "  \"%s\" { workload = %s, vcpus = 1, cpu-milli = %d, share = %s, "
              + "weight = %d, memory-cap = %dB, start-delay = %dns, stop-after = %dns, sla.fps = %s }%n", t.name(), workload,
          t.cpuMilli(), t.gpuMilli() / 1000.0, Math.max(1, Math.round(t.gpuMilli() / 10.0)),
          Math.max(1, gpuMemory * t.gpuMilli() / 1000), start, stay, t.qos().equals("LS") ? sla : 30.0));
    }
    b.append("}\n");
    return b.toString();
  }

  private static List<String> read(Path dir, String name, String key, BiConsumer<String, String> problems)
      throws IOException {
    if (name.isBlank()) {
      problems.accept(key, "expected the path of the trace's CSV file, relative to the scenario file");
      throw new IOException("no file");
    }
    Path file = dir.resolve(name).normalize();
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      problems.accept(key, "cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
      throw e;
    }
  }
}
