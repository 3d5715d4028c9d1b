package org.gpuemu.emulator.report;

import static org.gpuemu.emulator.report.Summary.round;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.TreeMap;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.policies.vmcg.Fairness;

/**
 * The {@code fairness} block of {@code summary.json} from each VM's rates, unrounded: the one code that computes it,
 * for a run of one JVM ({@link Summary}) and for a cluster run, whose coordinator merges the rows every node sends
 * (each VM's rates depend only on its own GPU, so a node's rows are those one JVM computes).
 */
public final class FairnessFigures {
  private FairnessFigures() {}

  /**
   * One VM's rates as the fairness figures compare them.
   *
   * @param normalized FairGV §5.4's x_i
   * @param ideal FairGV's ideal throughput, the weighted share of the solo one (0 unless by solo throughput)
   * @param measured completed kernels per second of its program's run (CRBs)
   * @param throughput VMCG's throughput: FPS for a VM that presents frames, {@code measured} otherwise
   * @param runRate 1 / its program's run time in s once its finite program ended, else null
   */
  public record Row(String vm, String workload, int weight, double normalized, double ideal, double measured,
      double throughput, Double runRate) {}

  /** Whether every VM's workload has a solo throughput (FairGV's basis); else GPU time is the basis. */
  public static boolean bySolo(Settings.Scenario s) {
    // FairGV §5.4: x_i = T_i / O_i, O_i = the VM's weight share of its solo throughput; possible when every
    // workload has a fixed solo rate, otherwise x_i is the VM's GPU-time share over its weight share
    return s.vms().stream().allMatch(vm -> s.workload(vm.workload()).soloRequestsPerSecond().isPresent());
  }

  /** The block over {@code rows}, in the scenario's VM order. */
  public static SummaryDoc.Fairness of(List<Row> rows, boolean bySolo) {
    double minNorm = Double.MAX_VALUE, maxNorm = 0, idealTotal = 0, measuredTotal = 0;
    Map<Integer, Integer> weights = new LinkedHashMap<>();
    Map<Integer, Double> throughputs = new LinkedHashMap<>();
    Map<Integer, Double> crbRates = new LinkedHashMap<>();
    Map<Integer, Double> runRates = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      Row t = rows.get(i);
      minNorm = Math.min(minNorm, t.normalized());
      maxNorm = Math.max(maxNorm, t.normalized());
      idealTotal += t.ideal();
      measuredTotal += t.measured();
      weights.put(i, t.weight());
      throughputs.put(i, t.throughput());
      crbRates.put(i, t.measured());
      if (t.runRate() != null) runRates.put(i, t.runRate());
    }
    return new SummaryDoc.Fairness(round(maxNorm > 0 ? minNorm / maxNorm : 0, 4),
        bySolo ? "solo throughput" : "gpu time",
        // FairGV's aggregated overhead: ideal aggregated throughput over measured aggregated throughput
        bySolo && measuredTotal > 0 ? round(idealTotal / measuredTotal, 4) : null,
        // VMCG's λ (vmcg.txt §6.3): weight shares against throughput shares, throughput being FPS for a VM that
        // presents frames and completed requests per second for one that does not
        lambda(Fairness.lambda(weights, throughputs)),
        // The same on one basis for every VM: completed requests (CRBs) per second, §6.3's "GPU command request
        // blocks capacity processed by the vGPU" -- the basis for VMs whose frames cost different GPU time
        // (Figures 16-17)
        lambda(Fairness.lambda(weights, crbRates)),
        // The same from run times, once every VM's finite program has ended: throughput 1/run time, as vmcg.txt
        // Table 2 computes its lambda from the DomUs' times (Rodinia) -- null while any VM still runs
        runRates.size() == weights.size() ? lambda(Fairness.lambda(weights, runRates)) : null,
        lambdaByWorkload(rows, weights, throughputs));
  }

  /**
   * λ on the `lambda` basis among the VMs that run the same workload, for every workload at least two VMs run (by
   * name, sorted): vmcg.txt Figures 10-11's "DomUs running the same workloads" of a teapot and gears mix, which
   * differ under gVirt and get almost the same frame rate under VMCG. Empty when no two VMs run the same workload.
   */
  private static Map<String, Double> lambdaByWorkload(List<Row> rows, Map<Integer, Integer> weights,
      Map<Integer, Double> throughputs) {
    Map<String, List<Integer>> byWorkload = new TreeMap<>();
    for (int i = 0; i < rows.size(); i++) {
      byWorkload.computeIfAbsent(rows.get(i).workload(), k -> new ArrayList<>()).add(i);
    }
    Map<String, Double> out = new TreeMap<>();
    for (Map.Entry<String, List<Integer>> e : byWorkload.entrySet()) {
      if (e.getValue().size() < 2) continue;
      Map<Integer, Integer> w = new LinkedHashMap<>();
      Map<Integer, Double> g = new LinkedHashMap<>();
      for (int i : e.getValue()) {
        w.put(i, weights.get(i));
        g.put(i, throughputs.get(i));
      }
      Double lambda = lambda(Fairness.lambda(w, g));
      if (lambda != null) out.put(e.getKey(), lambda);
    }
    return out;
  }

  private static Double lambda(OptionalDouble lambda) {
    return lambda.isPresent() ? round(lambda.getAsDouble(), 4) : null;
  }
}
