package org.gpuemu.policies.nvidia;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A MIG-capable GPU and its documented GPU instance profiles.
 *
 * <p>Sources: NVIDIA Multi-Instance GPU User Guide, "Supported MIG Profiles" (profile names, fractions of memory and
 * SMs, copy engines, number of instances available; A100-SXM4-40GB table and the H100 table; the placements diagram)
 * and "Supported GPUs" (A100 and H100: 7 instances at most); the start slices are those {@code nvidia-smi mig -lgipp}
 * lists in the guide's "Getting Started with MIG" examples for the A100 ({@code {0,1,2,3,4,5,6}:1}, {@code
 * {0,2,4,6}:2}, {@code {0,2,4}:2}, {@code {0,4}:4}, {@code {0}:4}, {@code {0}:8}). The guide gives SMs and memory as
 * fractions only; the exact SM counts and memory sizes are the ones NVIDIA's NVML exposes for these profiles
 * ({@code nvmlGpuInstanceProfileInfo_t} multiprocessorCount and memorySizeMB), as NVIDIA's own go-nvml test fixtures
 * for the A100 40GB and H100 80GB record them (github.com/NVIDIA/go-nvml, pkg/nvml/mock/shared/gpus/a100.go and
 * h100.go). Where those fixtures disagree with each other (the A100 40GB fixture gives 96 SMs to 7g.40gb, the 80GB
 * one 98 to 7g.80gb, the same 7 slices of 14 SMs) we take 7 x 14 = 98. The H100 fixture's SM counts (16 per slice,
 * 112 for 7g.80gb) are a fixture's, not a datasheet's; they are what the emulator uses and should be checked against
 * {@code nvidia-smi mig -lgip} on a real H100 before trusting an H100 figure.
 *
 * @param name the name a scenario uses ({@code a100-40gb}, {@code h100-80gb})
 * @param sms the SMs of the whole GPU outside MIG (A100: 108, H100 SXM5: 132; NVIDIA A100 and H100 datasheets)
 * @param profiles the documented profiles, in the guide's order
 */
public record MigGpu(String name, int sms, List<MigProfile> profiles) {
  /** Compute slices and memory slices of every MIG GPU here (the guide's n/7 and n/8). */
  public static final int COMPUTE_SLICES = 7;
  public static final int MEMORY_SLICES = 8;

  private static final Map<String, MigGpu> KNOWN = new LinkedHashMap<>();

  static {
    List<Integer> any = List.of(0, 1, 2, 3, 4, 5, 6);
    KNOWN.put("a100-40gb", new MigGpu("a100-40gb", 108, List.of(
        new MigProfile("1g.5gb", 1, 1, 14, 4864, 1, 7, any),
        new MigProfile("1g.5gb+me", 1, 1, 14, 4864, 1, 1, any),
        new MigProfile("1g.10gb", 1, 2, 14, 9856, 1, 4, List.of(0, 2, 4, 6)),
        new MigProfile("2g.10gb", 2, 2, 28, 9856, 2, 3, List.of(0, 2, 4)),
        new MigProfile("3g.20gb", 3, 4, 42, 19968, 3, 2, List.of(0, 4)),
        new MigProfile("4g.20gb", 4, 4, 56, 19968, 4, 1, List.of(0)),
        new MigProfile("7g.40gb", 7, 8, 98, 40192, 7, 1, List.of(0)))));
    KNOWN.put("h100-80gb", new MigGpu("h100-80gb", 132, List.of(
        new MigProfile("1g.10gb", 1, 1, 16, 10240, 1, 7, any),
        new MigProfile("1g.10gb+me", 1, 1, 16, 10240, 1, 1, any),
        new MigProfile("1g.20gb", 1, 2, 16, 20480, 1, 4, List.of(0, 2, 4, 6)),
        new MigProfile("2g.20gb", 2, 2, 32, 20480, 2, 3, List.of(0, 2, 4)),
        new MigProfile("3g.40gb", 3, 4, 48, 40960, 3, 2, List.of(0, 4)),
        new MigProfile("4g.40gb", 4, 4, 64, 40960, 4, 1, List.of(0)),
        new MigProfile("7g.80gb", 7, 8, 112, 81920, 7, 1, List.of(0)))));
  }

  public MigGpu {
    profiles = List.copyOf(profiles);
  }

  /** A known GPU by name. */
  public static Optional<MigGpu> of(String name) {
    return Optional.ofNullable(KNOWN.get(name));
  }

  /** The known GPUs' names. */
  public static List<String> names() {
    return List.copyOf(KNOWN.keySet());
  }

  /** A documented profile of this GPU by name. */
  public Optional<MigProfile> profile(String profileName) {
    return profiles.stream().filter(p -> p.name().equals(profileName)).findFirst();
  }

  /** The documented profiles' names. */
  public List<String> profileNames() {
    List<String> names = new ArrayList<>();
    for (MigProfile p : profiles) names.add(p.name());
    return names;
  }
}
