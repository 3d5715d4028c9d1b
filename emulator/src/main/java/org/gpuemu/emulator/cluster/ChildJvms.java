package org.gpuemu.emulator.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The other nodes of a cluster run as JVMs of their own on loopback ({@code run --cluster N}): each is this JVM's
 * class path running {@code node --seed ... --port 0}, its output in {@code node-<i>.log} of the run's folder.
 * Closing waits for each to end (they end when the coordinator tells their agent to stop) and kills one that has
 * not within 30 s.
 */
public final class ChildJvms implements ClusterRun.Launcher {
  private final Path logDir;
  private final java.io.PrintWriter out;
  private final List<String> extraArgs;
  private final List<Process> processes = new ArrayList<>();

  /** Nodes logging to {@code logDir}; each one's process id is told to {@code out} (for a kill -9 by hand). */
  public ChildJvms(Path logDir, java.io.PrintWriter out) {
    this(logDir, out, List.of());
  }

  /** As {@link #ChildJvms(Path, java.io.PrintWriter)}, each node given {@code extraArgs} too (TLS, plugins). */
  public ChildJvms(Path logDir, java.io.PrintWriter out, List<String> extraArgs) {
    this.logDir = logDir;
    this.out = out;
    this.extraArgs = List.copyOf(extraArgs);
  }

  @Override public void launch(int count, String seed, ClusterNode.Downing downing) throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    for (int i = 1; i <= count; i++) {
      List<String> command = new ArrayList<>(List.of(java, "-Xmx768m", "-cp", System.getProperty("java.class.path"),
          "org.gpuemu.emulator.cli.Main", "node", "--seed", seed, "--port", "0",
          "--heartbeat-pause", downing.heartbeatPause().toMillis() + "ms",
          "--stable-after", downing.stableAfter().toMillis() + "ms"));
      command.addAll(extraArgs);
      ProcessBuilder b = new ProcessBuilder(command);
      b.redirectErrorStream(true);
      b.redirectOutput(logDir.resolve("node-" + i + ".log").toFile());
      Process p = b.start();
      processes.add(p);
      out.printf("node %d: pid %d, log %s%n", i, p.pid(), logDir.resolve("node-" + i + ".log"));
    }
    out.flush();
  }

  /** The process ids of the nodes started (for a kill -9 of a node, docs/guides/cluster.md). */
  public List<Long> pids() {
    return processes.stream().map(Process::pid).toList();
  }

  @Override public void close() throws Exception {
    for (Process p : processes) {
      if (!p.waitFor(30, TimeUnit.SECONDS)) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // a lost one is gone
    }
  }
}
