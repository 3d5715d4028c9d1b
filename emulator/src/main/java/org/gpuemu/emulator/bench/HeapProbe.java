package org.gpuemu.emulator.bench;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;

/**
 * The bench's heap per idle VM on its own, without the scale search that runs before it in {@code bench --only scale}:
 * {@code java -cp emulator.jar org.gpuemu.emulator.bench.HeapProbe [running] [FEW MANY [REPEATS [OUT]]]} (default
 * 100 600 3, the quick bench's counts) runs the same idle-VM scenarios through the same code and prints the bytes per
 * idle VM of each repeat. The first repeat of a fresh JVM reads a few KiB higher than the rest (what the JVM fills
 * lazily the first time the larger count runs, not a cost per VM); the bench measures after its search, warm, like the
 * later repeats. With {@code running} the VMs start at once and draw frames (a core per vCPU, free context switches,
 * like the scale search): the heap per VM one emulated second into a game, in-flight frames and requests included.
 * With {@code OUT} the run folders go there (else into a temporary folder) and the live heap's class histogram of each
 * count, from the last repeat, goes into {@code OUT/histogram-<count>.txt}, followed by the classes whose bytes grow
 * most per VM.
 */
public final class HeapProbe {
  private static final Pattern ROW = Pattern.compile("\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+).*");
  private static final int TOP = 40;

  private HeapProbe() {}

  public static void main(String[] args) throws Exception {
    boolean running = args.length > 0 && args[0].equals("running");
    String[] counts = running ? Arrays.copyOfRange(args, 1, args.length) : args;
    int few = 100;
    int many = 600;
    int repeats = 3;
    try {
      if (counts.length == 1 || counts.length > 4) throw new IllegalArgumentException("wrong number of arguments");
      if (counts.length > 1) {
        few = Integer.parseInt(counts[0]);
        many = Integer.parseInt(counts[1]);
      }
      if (counts.length > 2) repeats = Integer.parseInt(counts[2]);
      if (few < 1 || many <= few || repeats < 1) throw new IllegalArgumentException("out of range");
    } catch (IllegalArgumentException e) { // NumberFormatException included
      System.err.println("HeapProbe: expected [running] [FEW MANY [REPEATS [OUT]]] with 0 < FEW < MANY and"
          + " REPEATS >= 1, got " + String.join(" ", args));
      System.exit(2);
    }
    boolean histograms = counts.length > 3;
    Path out = histograms ? Path.of(counts[3]) : Files.createTempDirectory("heap-probe");
    Runs runs = new Runs(out);
    Path fewFile = out.resolve("histogram-" + few + ".txt");
    Path manyFile = out.resolve("histogram-" + many + ".txt");
    for (int r = 0; r < repeats; r++) {
      // Written at once, not held: a histogram held in memory would count in the next count's heap.
      boolean last = histograms && r == repeats - 1;
      long fewBytes = heap(runs, running, few, last ? () -> classHistogram(fewFile) : null);
      long manyBytes = heap(runs, running, many, last ? () -> classHistogram(manyFile) : null);
      ScaleSection.Heap heap = ScaleSection.Heap.of(few, fewBytes, many, manyBytes);
      String kind = running ? "running" : "idle";
      System.out.printf(Locale.ROOT, "repeat %d: %,d %s VMs %,d bytes, %,d %s VMs %,d bytes -> %,d bytes per %s VM%n",
          r + 1, few, kind, fewBytes, many, kind, manyBytes, heap.bytesPerIdleVm(), kind);
    }
    if (histograms) {
      System.out.printf(Locale.ROOT, "bytes and instances per VM by class (live heap, last repeat):%n");
      for (String line : perVm(Files.readString(fewFile), Files.readString(manyFile), many - few)) {
        System.out.println(line);
      }
    }
    System.exit(0);
  }

  private static long heap(Runs runs, boolean running, int vms, Runnable afterMeasure) throws Exception {
    if (!running) return ScaleSection.idleHeap(runs, vms, afterMeasure);
    return ScaleSection.heapOneSecondIn(runs, new ScenarioText("heap-" + vms + "-running-vms",
        vms + " VMs drawing frames from the start, a core per vCPU, free context switches: the heap of running VMs")
        .durationSeconds(2)
        .set("host.cores", Integer.toString(2 * vms))
        .set("gpu.context-switch", "0us")
        .vms("vm", vms, "workload = " + ScaleSection.WORKLOAD), afterMeasure);
  }

  /** Writes the live heap's class histogram (the JVM's {@code GC.class_histogram}, after a full GC) to {@code to}. */
  private static void classHistogram(Path to) {
    try {
      Files.writeString(to, ManagementFactory.getPlatformMBeanServer().invoke(
          new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
          new Object[] {new String[0]}, new String[] {String[].class.getName()}).toString());
    } catch (Exception e) {
      throw new IllegalStateException("no class histogram from this JVM: " + e, e);
    }
  }

  /** The classes whose bytes grow most from {@code few} to {@code many}, per VM; first line the total. */
  static List<String> perVm(String few, String many, int vms) {
    Map<String, long[]> a = rows(few);
    Map<String, long[]> b = rows(many);
    Map<String, double[]> grown = new HashMap<>();
    Set<String> classes = new HashSet<>(a.keySet());
    classes.addAll(b.keySet());
    for (String k : classes) {
      long[] x = a.getOrDefault(k, new long[2]);
      long[] y = b.getOrDefault(k, new long[2]);
      grown.put(k, new double[] {(y[1] - x[1]) / (double) vms, (y[0] - x[0]) / (double) vms});
    }
    List<Map.Entry<String, double[]>> sorted = new ArrayList<>(grown.entrySet());
    sorted.sort((x, y) -> Double.compare(y.getValue()[0], x.getValue()[0]));
    List<String> lines = new ArrayList<>();
    lines.add(String.format(Locale.ROOT, "%,10.0f B  total",
        sorted.stream().mapToDouble(e -> e.getValue()[0]).sum()));
    for (Map.Entry<String, double[]> e : sorted.subList(0, Math.min(TOP, sorted.size()))) {
      lines.add(String.format(Locale.ROOT, "%,10.0f B %8.2f  %s", e.getValue()[0], e.getValue()[1], e.getKey()));
    }
    return lines;
  }

  /** Class name to {instances, bytes}. */
  private static Map<String, long[]> rows(String histogram) {
    Map<String, long[]> rows = new HashMap<>();
    for (String line : histogram.split("\n")) {
      Matcher m = ROW.matcher(line);
      if (m.matches()) rows.put(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
    }
    return rows;
  }
}
