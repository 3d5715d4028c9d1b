package org.gpuemu.policies.combo;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpuemu.workloads.KernelType;

/**
 * How much two kernels of different types gain from running on the same SMs (combo.txt §2.3.1, §4.2): the makespan
 * reduction of Eq. 1, {@code (T1 + T2 − Tcolo) / (T1 + T2)}, per unordered pair of kernel types. Kernels of the same
 * type compete for the same cores and serialise (Table 3: 0 % for RT+RT, CD+CD, TC+TC), so only the three pairs of
 * distinct types carry a value.
 *
 * <p>As an execution model (the emulator's SM-group fluid model and COMBO's duration predictor use the same one):
 * kernels on the same SMs progress at {@code 1/n} each, except that exactly two kernels of distinct types progress
 * at {@code 1 / (2 × (1 − r))} each, never faster than alone. Two equal kernels of T then finish together after
 * {@code 2T(1 − r)}, which is Eq. 1's reduction r. The paper measures pairs only; three or more co-runners share
 * equally, whatever their types.
 *
 * <p>Tables: {@link #table3()} is Table 3 as printed, for the synthetic kernels of §2.3.1 (no memory traffic, half
 * an SM's memory each). {@link #combo()} is what COMBO's real kernels get once converted to persistent thread
 * blocks, and the emulator's default: RT+CD 13.7 %, Figure 7's average over the real RT and Parboil kernels (25.9 %
 * at most); RT+TC 0, as Figure 7 finds real RT and TC kernels "consistently 0 or even negative" (a negative gain is
 * not modelled: a co-location that slows both is one COMBO never chooses); CD+TC 35.7 %, derived from
 * the real kernels of §4.2 (before, Table 3's 44.12 % for synthetic kernels that touch no memory was used
 * for the DNN and Parboil kernels, which do). The derivation: §1 says "the experimental results in §4.2 show that
 * the co-location of CD kernels with either TC kernels or RT kernels brings an average 18.1%", and §4.1's experiment
 * co-locates 4 RT kernels, one TC kernel (tzgemm) and 8 Parboil CD kernels: 32 RT+CD pairs, whose mean is Figure 7's
 * 13.7 %, and 8 CD+TC pairs. Read as the mean of Figure 7's makespan reductions over those 40 pairs,
 * (32 × 13.7 + 8 × x) / 40 = 18.1 gives x = 35.7 %. (Read as the mean of the two pair kinds' means instead, x would
 * be 22.5 %; the pair-weighted mean is the average over the experiment's measurements, what "an average" of §4.2's
 * results says.)
 */
public final class ColocationTable {
  /** Registry-style names of the built-in tables. */
  public static final String NONE = "none";
  public static final String TABLE3 = "table3";
  public static final String COMBO = "combo";

  private static final KernelType[] TYPES = KernelType.values();

  /** reduction[a][b] by ordinal, symmetric, 0 on the diagonal. */
  private final double[][] reduction = new double[TYPES.length][TYPES.length];

  private ColocationTable() {}

  /** No gain from co-location: every set of co-runners shares its SMs equally (the pre-COMBO papers). */
  public static ColocationTable none() {
    return new ColocationTable();
  }

  /** Table 3 for §2.3.1's synthetic kernels: RT+CD 39.87 %, RT+TC 34.62 %, CD+TC 44.12 %. */
  public static ColocationTable table3() {
    return new ColocationTable()
        .with(KernelType.RT, KernelType.CD, 0.3987)
        .with(KernelType.RT, KernelType.TC, 0.3462)
        .with(KernelType.CD, KernelType.TC, 0.4412);
  }

  /** CD+TC's makespan reduction for real kernels: §1's 18.1 % over §4.2's CD pairs less Figure 7's 32 RT+CD pairs. */
  static final double REAL_CD_TC = (40 * 0.181 - 32 * 0.137) / 8;

  /** COMBO's PTB-converted real kernels: RT+CD 13.7 % (Figure 7), RT+TC 0 (Figure 7), CD+TC 35.7 % (§1, §4.2). */
  public static ColocationTable combo() {
    return new ColocationTable()
        .with(KernelType.RT, KernelType.CD, 0.137)
        .with(KernelType.CD, KernelType.TC, REAL_CD_TC);
  }

  /** The built-in tables' names. */
  public static List<String> names() {
    return List.of(COMBO, NONE, TABLE3);
  }

  /** A built-in table by name; an unknown name fails listing the valid ones. */
  public static ColocationTable named(String name) {
    return switch (name) {
      case NONE -> none();
      case TABLE3 -> table3();
      case COMBO -> combo();
      default -> throw new IllegalArgumentException(
          "unknown co-location table '" + name + "'; valid: " + String.join(", ", names()));
    };
  }

  /**
   * A table from reductions keyed by pair, {@code "CD+TC" -> 0.4412}: two distinct type names joined by '+', in
   * either order. Each reduction must be in [0, 0.5], the most a pair can gain while neither kernel runs faster
   * than alone (Table 3's "theoretical value, which is 50%").
   */
  public static ColocationTable of(Map<String, Double> pairReductions) {
    ColocationTable table = new ColocationTable();
    pairReductions.forEach((key, value) -> {
      String[] parts = key.split("\\+");
      if (parts.length != 2) {
        throw new IllegalArgumentException("co-location pair '" + key + "' must name two kernel types, e.g. CD+TC");
      }
      table.with(type(parts[0], key), type(parts[1], key), value);
    });
    return table;
  }

  private static KernelType type(String name, String key) {
    try {
      return KernelType.valueOf(name.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("co-location pair '" + key + "': unknown kernel type '" + name
          + "'; valid: " + Arrays.toString(TYPES));
    }
  }

  private ColocationTable with(KernelType a, KernelType b, double r) {
    if (a == b) {
      throw new IllegalArgumentException("co-location pair " + a + "+" + b + ": kernels of one type serialise (0 %)");
    }
    if (!(r >= 0 && r <= 0.5)) {
      throw new IllegalArgumentException("reduction of " + a + "+" + b + " must be in [0, 0.5], got " + r);
    }
    reduction[a.ordinal()][b.ordinal()] = r;
    reduction[b.ordinal()][a.ordinal()] = r;
    return this;
  }

  /** Eq. 1's makespan reduction of a pair co-running; 0 for two kernels of one type. */
  public double reduction(KernelType a, KernelType b) {
    return reduction[a.ordinal()][b.ordinal()];
  }

  /** The three pairs of distinct types with their reductions, keyed {@code "RT+CD"} etc. in {@link KernelType} order. */
  public Map<String, Double> pairReductions() {
    Map<String, Double> pairs = new LinkedHashMap<>();
    for (int a = 0; a < TYPES.length; a++) {
      for (int b = a + 1; b < TYPES.length; b++) {
        pairs.put(TYPES[a] + "+" + TYPES[b], reduction[a][b]);
      }
    }
    return pairs;
  }

  /** Progress rate (solo work per nanosecond) of each kernel of a co-running set, in the order given. */
  public double[] rates(List<KernelType> running) {
    int n = running.size();
    double[] rates = new double[n];
    if (n == 0) return rates;
    double r = n == 2 ? reduction(running.get(0), running.get(1)) : 0.0;
    Arrays.fill(rates, Math.min(1.0, 1.0 / (n * (1.0 - r))));
    return rates;
  }

  /** Eq. 1: the makespan reduction of two kernels of solo times t1 and t2 that took tColo together. */
  public static double makespanReduction(double t1, double t2, double tColo) {
    if (!(t1 > 0 && t2 > 0 && tColo > 0)) throw new IllegalArgumentException("times must be > 0");
    return (t1 + t2 - tColo) / (t1 + t2);
  }

  @Override public String toString() {
    return "ColocationTable" + pairReductions();
  }
}
