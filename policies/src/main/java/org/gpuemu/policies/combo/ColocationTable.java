package org.gpuemu.policies.combo;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;

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
 *
 * <p>Memory intensity ({@link MemoryClass}): §6.3 finds the compute-intensive Parboil kernels gaining more than the
 * memory-intensive ones because "their co-runs face more resource contention ... consistent with the experimental
 * results in §4.2", so a pair with a classified CD kernel takes its class's reduction, an unclassified one the mean
 * above. The classes' values are derived from the paper's numbers, not fitted: Figure 7's 32 RT+CD pairs (four RT
 * kernels by eight Parboil kernels, four of each class) lie between 0 and 25.9 % with mean 13.7 %, about half the
 * maximum, which is what pairs spread evenly over [0, max] give; with the compute-intensive half above the
 * memory-intensive half, the class means are 3/4 and 1/4 of the span, i.e. 1.5 and 0.5 times the mean (kept exact):
 * RT+CD 20.55 % and 6.85 %. What a class loses is contention: against the synthetic kernels of Table 3, which touch
 * no memory (RT+CD 39.87 %), compute-intensive pairs lose 19.32 points and memory-intensive ones 33.02 (ratio
 * 0.585). CD+TC's real pairs lose 44.12 − 35.7 = 8.42 points on average; split in the same ratio, CD+TC is 37.90 %
 * for a compute-intensive and 33.50 % for a memory-intensive CD kernel. Both pair kinds keep their means, so §1's
 * 18.1 % still holds.
 */
public final class ColocationTable {
  /** Registry-style names of the built-in tables. */
  public static final String NONE = "none";
  public static final String TABLE3 = "table3";
  public static final String COMBO = "combo";

  private static final KernelType[] TYPES = KernelType.values();

  /** reduction[a][b] by ordinal, symmetric, 0 on the diagonal: kernels of no memory class (the mean). */
  private final double[][] reduction = new double[TYPES.length][TYPES.length];
  /** The same for a pair whose CD kernel is compute- or memory-intensive; equal to {@link #reduction} unless set. */
  private final double[][] compute = new double[TYPES.length][TYPES.length];
  private final double[][] memory = new double[TYPES.length][TYPES.length];

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

  /** Figure 7: the mean and the largest makespan reduction of the real RT+CD pairs. */
  static final double FIGURE7_RT_CD_MEAN = 0.137;
  static final double FIGURE7_RT_CD_MAX = 0.259;
  /** Class means over an even spread of pairs from 0 to the maximum, as multiples of the mean (see the class doc). */
  static final double COMPUTE_SHARE = 1.5;
  static final double MEMORY_SHARE = 0.5;
  /** Table 3's synthetic RT+CD and CD+TC, which touch no memory: the reductions without contention. */
  static final double SYNTHETIC_RT_CD = 0.3987;
  static final double SYNTHETIC_CD_TC = 0.4412;

  /** RT+CD for a compute-intensive CD kernel: 20.55 %. */
  static final double RT_CD_COMPUTE = COMPUTE_SHARE * FIGURE7_RT_CD_MEAN;
  /** RT+CD for a memory-intensive CD kernel: 6.85 %. */
  static final double RT_CD_MEMORY = MEMORY_SHARE * FIGURE7_RT_CD_MEAN;
  /** Contention loss of a compute-intensive pair over a memory-intensive one's, from RT+CD: 0.585. */
  static final double LOSS_RATIO = (SYNTHETIC_RT_CD - RT_CD_COMPUTE) / (SYNTHETIC_RT_CD - RT_CD_MEMORY);
  /** CD+TC's mean loss against the synthetic kernels, split between the classes in {@link #LOSS_RATIO}. */
  static final double CD_TC_MEMORY = SYNTHETIC_CD_TC - 2 * (SYNTHETIC_CD_TC - REAL_CD_TC) / (1 + LOSS_RATIO);
  static final double CD_TC_COMPUTE = SYNTHETIC_CD_TC
      - 2 * LOSS_RATIO * (SYNTHETIC_CD_TC - REAL_CD_TC) / (1 + LOSS_RATIO);

  /**
   * COMBO's PTB-converted real kernels: RT+CD 13.7 % (Figure 7), RT+TC 0 (Figure 7), CD+TC 35.7 % (§1, §4.2); by
   * memory class RT+CD 20.55 / 6.85 % and CD+TC 37.90 / 33.50 % (compute- / memory-intensive CD kernel).
   */
  public static ColocationTable combo() {
    return new ColocationTable()
        .with(KernelType.RT, KernelType.CD, FIGURE7_RT_CD_MEAN)
        .with(KernelType.CD, KernelType.TC, REAL_CD_TC)
        .withClasses(KernelType.RT, KernelType.CD, RT_CD_COMPUTE, RT_CD_MEMORY)
        .withClasses(KernelType.CD, KernelType.TC, CD_TC_COMPUTE, CD_TC_MEMORY);
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
    return withClasses(a, b, r, r);
  }

  private ColocationTable withClasses(KernelType a, KernelType b, double computeR, double memoryR) {
    for (double r : new double[] {computeR, memoryR}) {
      if (!(r >= 0 && r <= 0.5)) {
        throw new IllegalArgumentException("reduction of " + a + "+" + b + " must be in [0, 0.5], got " + r);
      }
    }
    compute[a.ordinal()][b.ordinal()] = computeR;
    compute[b.ordinal()][a.ordinal()] = computeR;
    memory[a.ordinal()][b.ordinal()] = memoryR;
    memory[b.ordinal()][a.ordinal()] = memoryR;
    return this;
  }

  /** Eq. 1's makespan reduction of a pair co-running; 0 for two kernels of one type. */
  public double reduction(KernelType a, KernelType b) {
    return reduction[a.ordinal()][b.ordinal()];
  }

  /**
   * Eq. 1's reduction of a pair whose kernels have memory classes: the class of the pair's CD kernel decides (a
   * classified RT or TC kernel counts as unclassified; two CD kernels serialise).
   */
  public double reduction(KernelType a, MemoryClass ma, KernelType b, MemoryClass mb) {
    MemoryClass m = a == KernelType.CD ? ma : b == KernelType.CD ? mb : MemoryClass.UNCLASSIFIED;
    return switch (m) {
      case UNCLASSIFIED -> reduction[a.ordinal()][b.ordinal()];
      case COMPUTE -> compute[a.ordinal()][b.ordinal()];
      case MEMORY -> memory[a.ordinal()][b.ordinal()];
    };
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
    return rates(running, null);
  }

  /**
   * Progress rates of a co-running set whose kernels have memory classes ({@code memory} parallel to {@code
   * running}; null: none classified).
   */
  public double[] rates(List<KernelType> running, List<MemoryClass> memory) {
    int n = running.size();
    double[] rates = new double[n];
    if (n == 0) return rates;
    MemoryClass m0 = memory == null ? MemoryClass.UNCLASSIFIED : memory.get(0);
    MemoryClass m1 = memory == null || n < 2 ? MemoryClass.UNCLASSIFIED : memory.get(1);
    Arrays.fill(rates, sharedRate(n, running.get(0), m0, running.get(n < 2 ? 0 : 1), m1));
    return rates;
  }

  /**
   * The rate every kernel of a co-running set of {@code n} progresses at ({@link #rates} gives each the same):
   * 1/n, or a pair's Eq. 1 rate, which only the pair's two types ({@code a}, {@code b}) and memory classes decide.
   */
  public double sharedRate(int n, KernelType a, MemoryClass ma, KernelType b, MemoryClass mb) {
    double r = n != 2 ? 0.0 : reduction(a, ma, b, mb);
    return Math.min(1.0, 1.0 / (n * (1.0 - r)));
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
