package org.gpuemu.workloads;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The workloads of COMBO (Chen et al., combo.txt §6.2, Table 7, on an RTX 3090): the four cloud games of Table 2 at
 * 120 FPS as {@link ComboGame}s, the synthetic game of §5.2's Table 6 experiment, and the best-effort (BE) jobs,
 * four DNN trainings (CD and TC kernels) and eight Parboil benchmarks (CD kernels only), as endless {@link
 * StepLoop}s. Every number is from the paper or derived from it where the comment next to it says so; where the
 * paper gives nothing the number is marked assumed.
 *
 * <p>Names: {@code combo-<game>} (high quality, stable load), with {@code -medium} or {@code -low} for Table 4's
 * other qualities and {@code -dynamic} for Figure 18's load shape ({@code -fluctuating}, high quality only: the
 * fluctuation of §5.2's Experiment B all the time, for Figure 16, where merging needs the relaxed scheme); {@code combo-table6} and {@code
 * combo-table6-dynamic}; {@code combo-<model>} for DNN training and {@code combo-<benchmark>} for Parboil.
 */
public final class ComboWorkloads {
  private static final long MS = 1_000_000L;
  private static final long US = 1_000L;
  /** Table 2: every game runs at 120 FPS. */
  static final double GAME_FPS = 120;
  /** CPU work of a frame before its kernels launch (game logic, command recording). Assumed. */
  static final long GAME_CPU_NANOS = 500 * US;
  /** §1: "ray tracing accounts for 36.5% of the total rendering time" (the four games on average). */
  static final double MEAN_RT_SHARE = 0.365;
  /** §6.3: "Quake 2 has the RT kernels accounting for 50.6% overall duration". */
  static final double QUAKE2_RT_SHARE = 0.506;
  /**
   * High quality's share of the SMs a game needs at 120 FPS. Table 4 prints 100 % for all four games, which would
   * leave a frame no headroom at all, against Figure 2 (PilotFish harvests headroom beside every game and leaves
   * 10.6 % of the QoS target unused on average, 17.4 % at most) and Figure 13 (PilotFish runs every BE job beside
   * every game). §2.3.2's text says the games "require an average of 70% and a maximum of 90% SM": we take 70 % for
   * the mean frame. (With 90 % a frame leaves 0.83 ms, less than Figure 2's mean unused 0.88 ms, and PilotFish could
   * run no VGG16 kernel at all.)
   */
  static final double HIGH_QUALITY_SM_RATIO = 0.70;
  /** RT share of §5.2's synthetic game (see {@link #table6}). */
  static final double TABLE6_RT_SHARE = 0.10;
  /** BE kernels' grid: one full wave on the RTX 3090, 82 SMs × (1,024 threads / 128 per block) (Table 1). Nominal. */
  static final int BE_BLOCKS = 82 * 8;

  /** Table 4's qualities. */
  public enum Quality { HIGH, MEDIUM, LOW }

  /**
   * One game of Table 2.
   *
   * @param key         workload name part
   * @param title       the game
   * @param improvement Figure 13's mean BE throughput improvement of COMBO over PilotFish with this game, in %
   *                    (§6.3: Quake 2 16.8; "others are 12.9%, 8.55%, and 12.6%", read in Table 2's order)
   * @param medium      Table 4, medium quality SM ratio
   * @param low         Table 4, low quality SM ratio
   */
  record GameSpec(String key, String title, double improvement, double medium, double low) {
    double smRatio(Quality quality) {
      return switch (quality) {
        case HIGH -> HIGH_QUALITY_SM_RATIO;
        case MEDIUM -> medium;
        case LOW -> low;
      };
    }
  }

  /** Table 2 and Table 4, in their order. */
  static final List<GameSpec> GAMES = List.of(
      new GameSpec("steel", "Severed Steel (the paper's 'Served Steel')", 12.9, 0.6897, 0.2344),
      new GameSpec("dutm", "Deliver Us The Moon", 8.55, 0.7317, 0.4762),
      new GameSpec("quake2", "Quake 2 RTX", 16.8, 0.7229, 0.4412),
      new GameSpec("ascent", "The Ascent", 12.6, 0.3973, 0.2564));

  /**
   * One DNN training job (§6.2: "The DNN training tasks contain CD kernels and TC kernels"). An iteration runs the
   * forward pass (per weight layer a TC kernel, convolution or GEMM, then a CD kernel, its batch norm and ReLU), the
   * backward pass in reverse (per layer a CD kernel and two TC kernels, data and weight gradients) and one CD optimizer
   * step, which is a synchronous call (the training loop reads the loss back). The paper gives no kernel durations;
   * they are derived, per layer, from the network's architecture ({@link DnnLayers}) and the RTX 3090:
   *
   * <ul>
   *   <li>at the GPU's documented peaks (NVIDIA Ampere GA102 whitepaper: TF32 Tensor {@link #TC_PEAK_FLOPS}, GDDR6X
   *       {@link #DRAM_BYTES_PER_S}) a TC kernel takes 2 × MACs × batch / peak (forward, data and weight gradient
   *       alike) and a CD kernel bytes / bandwidth: batch norm and ReLU read and write their elements
   *       {@link #BN_FWD_PASSES} times forward and {@link #BN_BWD_PASSES} times backward (VGG16, ReLU alone: {@link
   *       #RELU_FWD_PASSES} and {@link #RELU_BWD_PASSES}), 4 bytes each; the optimizer (Adam) {@link
   *       #ADAM_PASSES} passes over the weights;</li>
   *   <li>every kernel is then scaled by one factor per network so that the iteration takes what an RTX 3090
   *       measurably takes: batch / images per second of published PyTorch training throughput on an RTX 3090
   *       (N. Sentyabov, "RTX 5090 Deep Learning Benchmark", 2025-02-17, FP32 training column, tabulated in
   *       github.com/nehemiah888/rtx5090aitest: VGG16 260.8, ResNet50 523.0 images/s). No RTX 3090 figure was found
   *       for Inception-v3 and DenseNet-121: they take ResNet50's factor (the same achieved share of the peaks).</li>
   * </ul>
   *
   * <p>Batch: the paper gives none. Its first author's PilotFish artifact (combo.txt's [37],
   * github.com/Chen-Binghao/PilotFish, {@code script/kernel-inject.bat}) trains the {@code pytorch_classification}
   * scripts of github.com/WZMIAOMIAO/deep-learning-for-image-processing, whose VGG16 script trains at batch 32
   * ({@code Test3_vggnet/train.py}) and ResNet script at 16 ({@code Test5_resnet/train.py}); DenseNet-121 takes 16
   * and Inception-v3 32 (assumed: the same family of scripts, not verified).
   *
   * @param layers   the network's weight layers
   * @param batch    images per iteration
   * @param measured published RTX 3090 training throughput, images per second; 0 when none was found
   */
  record DnnSpec(String key, String title, DnnLayers layers, int batch, double measured) {}

  /** NVIDIA GA102 whitepaper: GeForce RTX 3090 peak dense TF32 Tensor throughput, FLOP/s. */
  static final double TC_PEAK_FLOPS = 35.6e12;
  /** NVIDIA: GeForce RTX 3090 memory bandwidth, bytes/s. */
  static final double DRAM_BYTES_PER_S = 936e9;
  /** FP32 activations and weights. */
  static final int BYTES = 4;
  /** Batch norm reads its input twice (statistics, normalisation) and writes once; ReLU reads and writes once. */
  static final int BN_FWD_PASSES = 5;
  /** ReLU backward reads two and writes one; batch norm backward reads three (two reductions) and writes two. */
  static final int BN_BWD_PASSES = 8;
  static final int RELU_FWD_PASSES = 2;
  static final int RELU_BWD_PASSES = 3;
  /** Adam reads weight, gradient and both moments and writes weight and both moments. */
  static final int ADAM_PASSES = 7;

  static final List<DnnSpec> DNNS = List.of(
      new DnnSpec("resnet50", "ResNet50", DnnLayers.resnet50(), 16, 523.0),
      new DnnSpec("vgg16", "VGG16", DnnLayers.vgg16(), 32, 260.8),
      new DnnSpec("inception", "Inception-v3", DnnLayers.inceptionV3(), 32, 0),
      new DnnSpec("densenet", "DenseNet-121", DnnLayers.densenet121(), 16, 0));

  /** A DNN's kernels at the peaks, unscaled: per layer forward TC, forward CD, backward CD; and the optimizer. */
  record PeakKernels(double[] tc, double[] cdFwd, double[] cdBwd, double optimizer) {
    double iteration() {
      double sum = optimizer;
      for (int l = 0; l < tc.length; l++) sum += 3 * tc[l] + cdFwd[l] + cdBwd[l];
      return sum;
    }
  }

  static PeakKernels peakKernels(DnnSpec d) {
    List<DnnLayers.Layer> layers = d.layers().layers();
    int n = layers.size();
    double[] tc = new double[n];
    double[] cdFwd = new double[n];
    double[] cdBwd = new double[n];
    int fwd = d.layers().norm() ? BN_FWD_PASSES : RELU_FWD_PASSES;
    int bwd = d.layers().norm() ? BN_BWD_PASSES : RELU_BWD_PASSES;
    for (int l = 0; l < n; l++) {
      DnnLayers.Layer layer = layers.get(l);
      tc[l] = 2.0 * layer.macs() * d.batch() / TC_PEAK_FLOPS * 1e9;
      double bytes = (double) layer.cdElements() * d.batch() * BYTES;
      cdFwd[l] = fwd * bytes / DRAM_BYTES_PER_S * 1e9;
      cdBwd[l] = bwd * bytes / DRAM_BYTES_PER_S * 1e9;
    }
    double optimizer = (double) ADAM_PASSES * d.layers().weights() * BYTES / DRAM_BYTES_PER_S * 1e9;
    return new PeakKernels(tc, cdFwd, cdBwd, optimizer);
  }

  /** The factor from peak to measured: the published iteration time over the iteration at the peaks. */
  static double achievedFactor(DnnSpec d) {
    DnnSpec measured = d.measured() > 0 ? d : DNNS.get(0);
    return measured.batch() / measured.measured() * 1e9 / peakKernels(measured).iteration();
  }

  /** CPU work per training iteration before its kernels launch (the Python loop; data loading overlaps). Assumed. */
  static final long DNN_CPU_NANOS = MS;

  /**
   * One Parboil benchmark (§6.2: "The scientific applications only contain the CD kernel"), looped: per iteration
   * some CPU work, {@link #PARBOIL_LAUNCHES} launches of its main kernel, the last a synchronous call. §6.3 sorts
   * them into compute-intensive (cp, mrif, mriq, fft) and memory-intensive (lbm, regtil, cutcp, tpacf). Kernel
   * durations: mri-q's 1.2 ms is §5.2's; the others are assumed, of the order of the benchmarks' main kernels at
   * their large inputs on an RTX 3090-class GPU.
   */
  record ParboilSpec(String key, String title, boolean computeIntensive, long kernelNanos) {}

  static final List<ParboilSpec> PARBOIL = List.of(
      new ParboilSpec("cp", "cp (Coulombic potential)", true, 900 * US),
      new ParboilSpec("mrif", "mri-fhd (MRI reconstruction, FH matrix)", true, 1_500 * US),
      new ParboilSpec("mriq", "mri-q (MRI reconstruction, Q matrix)", true, 1_200 * US), // §5.2: 1.2 ms
      new ParboilSpec("fft", "fft", true, 300 * US),
      new ParboilSpec("lbm", "lbm (lattice-Boltzmann)", false, 700 * US),
      new ParboilSpec("regtil", "sgemm, register-tiled", false, 500 * US),
      new ParboilSpec("cutcp", "cutcp (cutoff Coulombic potential)", false, 400 * US),
      new ParboilSpec("tpacf", "tpacf (two-point angular correlation)", false, 1_800 * US));
  /** Parboil kernels per iteration; the last is synchronous (the result is read back). Assumed. */
  static final int PARBOIL_LAUNCHES = 8;
  /** CPU work per Parboil iteration. Assumed. */
  static final long PARBOIL_CPU_NANOS = 200 * US;

  private ComboWorkloads() {}

  /** Every COMBO workload. */
  public static List<Workload> all() {
    List<Workload> list = new ArrayList<>();
    for (GameSpec g : GAMES) {
      for (Quality q : Quality.values()) {
        list.add(game(g, q, LoadTrace.stable()));
        list.add(game(g, q, LoadTrace.dynamic()));
      }
      list.add(game(g, Quality.HIGH, LoadTrace.fluctuating()));
    }
    table6(list);
    for (DnnSpec d : DNNS) list.add(dnn(d));
    for (ParboilSpec p : PARBOIL) list.add(parboil(p));
    return List.copyOf(list);
  }

  /**
   * RT share of a game's render time. Quake 2's is §6.3's 50.6 %; for the other three the paper gives only the
   * four games' mean, 36.5 % (§1), and says the intra-SM gain "depends on the duration of RT kernels". So their
   * shares are taken proportional to their Figure 13 improvements and sized so that the four average 36.5 %:
   * Severed Steel 36.1 %, DUTM 24.0 %, The Ascent 35.3 %.
   */
  static double rtShare(GameSpec game) {
    if (game.key().equals("quake2")) return QUAKE2_RT_SHARE;
    double othersTotal = GAMES.size() * MEAN_RT_SHARE - QUAKE2_RT_SHARE;
    double improvements = GAMES.stream().filter(g -> !g.key().equals("quake2")).mapToDouble(GameSpec::improvement).sum();
    return othersTotal * game.improvement() / improvements;
  }

  /** A game's mean render time on the whole GPU: Table 4's SM ratio of the 120 FPS QoS target (§2.3.2). */
  static long meanRenderNanos(GameSpec game, Quality quality) {
    return Math.round(game.smRatio(quality) * 1e9 / GAME_FPS);
  }

  private static Workload game(GameSpec g, Quality q, LoadTrace trace) {
    String name = "combo-" + g.key() + (q == Quality.HIGH ? "" : "-" + q.name().toLowerCase(Locale.ROOT))
        + switch (trace.mode()) {
          case STABLE -> "";
          case DYNAMIC -> "-dynamic";
          case FLUCTUATING -> "-fluctuating";
        };
    String description = String.format(Locale.ROOT,
        "%s at 2560x1440, 120 FPS, %s quality (combo Tables 2, 4: %.2f %% of the SMs), RT %.1f %% of render, %s load",
        g.title(), q.name().toLowerCase(Locale.ROOT), 100 * g.smRatio(q), 100 * rtShare(g),
        switch (trace.mode()) {
          case STABLE -> "stable";
          case DYNAMIC -> "dynamic (Figure 18)";
          case FLUCTUATING -> "fluctuating all the time (§5.2 Experiment B's shape)";
        });
    return new ComboGame(name, description, new ComboGame.Frames(GAME_FPS, meanRenderNanos(g, q), rtShare(g),
        GAME_CPU_NANOS), trace);
  }

  /**
   * §5.2's experiment: QoS target 16.7 ms (60 FPS), render 14.8 ms per frame, constant (Experiment A) or between
   * 12 and 16 ms with the same mean (Experiment B). The paper does not say how much of it is ray tracing, and its
   * account of Experiment A under the relaxed scheme is purely temporal: one 1.2 ms mri-q kernel per frame (Table
   * 6: 0.998), "running the BE kernel twice per frame would lead to QoS violations". With the four games' 36.5 %
   * (§1) the 5.4 ms RT phase would host two co-located mri-q kernels per frame; we take {@link #TABLE6_RT_SHARE},
   * a 1.48 ms RT phase that hosts one, as Table 6 measures.
   */
  private static void table6(List<Workload> list) {
    long render = 14_800 * US;
    list.add(new ComboGame("combo-table6", "Table 6 Experiment A: 60 FPS, 14.8 ms render per frame, stable (combo §5.2)",
        new ComboGame.Frames(60, render, TABLE6_RT_SHARE, GAME_CPU_NANOS), LoadTrace.stable()));
    list.add(new ComboGame("combo-table6-dynamic",
        "Table 6 Experiment B: 60 FPS, render 12-16 ms per frame, mean 14.8 ms (combo §5.2)",
        new ComboGame.Frames(60, render, TABLE6_RT_SHARE, GAME_CPU_NANOS), LoadTrace.fluctuating()));
  }

  /** A DNN training job: see {@link DnnSpec}. */
  static StepLoop dnn(DnnSpec d) {
    PeakKernels peak = peakKernels(d);
    double k = achievedFactor(d);
    int n = peak.tc().length;
    List<Step> iteration = new ArrayList<>();
    iteration.add(new Step.CpuBurst(DNN_CPU_NANOS));
    for (int l = 0; l < n; l++) {
      iteration.add(launch(d.key() + "/fwd", KernelType.TC, k * peak.tc()[l]));
      iteration.add(launch(d.key() + "/bn-act", KernelType.CD, k * peak.cdFwd()[l]));
    }
    for (int l = n - 1; l >= 0; l--) {
      iteration.add(launch(d.key() + "/bn-act-bwd", KernelType.CD, k * peak.cdBwd()[l]));
      iteration.add(launch(d.key() + "/dgrad", KernelType.TC, k * peak.tc()[l]));
      iteration.add(launch(d.key() + "/wgrad", KernelType.TC, k * peak.tc()[l]));
    }
    iteration.add(new Step.SyncCall(kernel(d.key() + "/optimizer", KernelType.CD, k * peak.optimizer())));
    String description = String.format(Locale.ROOT,
        "%s training (combo §6.2), batch %d: %d weight layers, %.1f ms of GPU work per iteration "
            + "(per-layer kernels from the architecture and the RTX 3090%s)",
        d.title(), d.batch(), n, k * peak.iteration() / 1e6,
        d.measured() > 0 ? String.format(Locale.ROOT, ", %.1f images/s measured", d.measured()) : "");
    return new StepLoop("combo-" + d.key(), description, iteration);
  }

  /** A DNN kernel: element-wise CD kernels are memory-intensive, TC kernels unclassified. */
  private static KernelSpec kernel(String name, KernelType type, double nanos) {
    MemoryClass memory = type == KernelType.CD ? MemoryClass.MEMORY : MemoryClass.UNCLASSIFIED;
    return new KernelSpec(name, type, BE_BLOCKS, Math.max(1, Math.round(nanos)), memory);
  }

  private static Step launch(String name, KernelType type, double nanos) {
    return new Step.LaunchKernel(kernel(name, type, nanos));
  }

  /** A Parboil benchmark: see {@link ParboilSpec}. */
  static StepLoop parboil(ParboilSpec p) {
    KernelSpec kernel = new KernelSpec(p.key(), KernelType.CD, BE_BLOCKS, p.kernelNanos(),
        p.computeIntensive() ? MemoryClass.COMPUTE : MemoryClass.MEMORY);
    List<Step> iteration = new ArrayList<>();
    iteration.add(new Step.CpuBurst(PARBOIL_CPU_NANOS));
    for (int i = 1; i < PARBOIL_LAUNCHES; i++) iteration.add(new Step.LaunchKernel(kernel));
    iteration.add(new Step.SyncCall(kernel));
    String description = String.format(Locale.ROOT, "Parboil %s (combo §6.2), %s-intensive: CD kernels of %.2f ms%s",
        p.title(), p.computeIntensive() ? "compute" : "memory", p.kernelNanos() / 1e6,
        p.key().equals("mriq") ? " (§5.2)" : " (assumed)");
    return new StepLoop("combo-" + p.key(), description, iteration);
  }
}
