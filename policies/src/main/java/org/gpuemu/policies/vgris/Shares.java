package org.gpuemu.policies.vgris;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.gpuemu.policies.gpu.VgpuParams;

/** Where proportional shares come from: the scenario (VGRIS §4.2) or measured usage (Eq. 2). */
public final class Shares {
  /** Slack for sums of decimal shares, which binary doubles do not add exactly (0.7 + 0.3). */
  static final double TOLERANCE = 1e-9;

  private Shares() {}

  /**
   * The shares a scenario configured, by vGPU. VMs that set a share keep it even when the set shares do not add up
   * to one (Table 2 runs NBA 2012 at 0.3 and 3DMark05 GT1 at 0.5; the GPU's remaining 0.2 stays unused); VMs that
   * set none split what the others left equally. Fails, naming the VMs, when the set shares exceed 1 or leave
   * nothing for VMs that set none.
   */
  public static SortedMap<Integer, Double> configured(Collection<VgpuParams> vms) {
    List<VgpuParams> set = vms.stream().filter(VgpuParams::hasShare).toList();
    List<VgpuParams> unset = vms.stream().filter(vm -> !vm.hasShare()).toList();
    double total = set.stream().mapToDouble(VgpuParams::share).sum();
    if (total > 1 + TOLERANCE) {
      throw new IllegalArgumentException("VM shares sum to " + format(total) + ", above 1: " + describe(set));
    }
    double each = unset.isEmpty() ? 0 : (1 - total) / unset.size();
    if (!unset.isEmpty() && each <= TOLERANCE) {
      throw new IllegalArgumentException("VM shares sum to " + format(total) + " (" + describe(set)
          + "), leaving nothing for " + unset.stream().map(VgpuParams::name).collect(Collectors.joining(", "))
          + ", which set no share");
    }
    SortedMap<Integer, Double> shares = new TreeMap<>();
    vms.forEach(vm -> shares.put(vm.vgpu(), vm.hasShare() ? vm.share() : each));
    return shares;
  }

  /**
   * Eq. 2: s_i = u_i + (1 − Σu)/n. Each VM keeps the usage u_i it needed and the unused rest of the GPU is divided
   * fairly; with every u_i = 0 these are fair shares 1/n. Requires Σu &lt; 1, so every share is positive.
   */
  public static SortedMap<Integer, Double> fromUsage(SortedMap<Integer, Double> usage) {
    double total = total(usage);
    if (!(total < 1)) {
      throw new IllegalArgumentException("Eq. 2 needs usages summing below 1, got " + format(total));
    }
    double surplus = (1 - total) / usage.size();
    SortedMap<Integer, Double> shares = new TreeMap<>();
    usage.forEach((vgpu, u) -> shares.put(vgpu, u + surplus));
    return shares;
  }

  /** A share for messages: six significant digits, no trailing zeros. */
  static String format(double value) {
    return new BigDecimal(value).round(new MathContext(6)).stripTrailingZeros().toPlainString();
  }

  private static String describe(List<VgpuParams> vms) {
    return vms.stream().map(vm -> vm.name() + " " + format(vm.share())).collect(Collectors.joining(", "));
  }

  /** The sum of a share table's values. */
  static double total(Map<Integer, Double> shares) {
    return shares.values().stream().mapToDouble(Double::doubleValue).sum();
  }
}
