package org.gpuemu.policies.gballoon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.ArrayList;
import java.util.List;
import org.gpuemu.workloads.MemoryAware;
import org.gpuemu.workloads.ObjectReturns;
import org.gpuemu.workloads.Program;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.WorkloadCatalog;
import org.junit.jupiter.api.Test;

/** Figures 9 and 10 (§4.4): one VM runs Valley alone, its guest driver talking to each memory policy. */
class ValleyTest {
  private static final long S = 1_000_000_000L;
  private static final long MIB = SlotParams.MIB;

  /** A slot count reached at a time. */
  private record Slots(long atNanos, int slots) {}

  /** What Valley did: frames, how long it ran, its slots over time, what the VM held at the end. */
  private record Run(long frames, long endNanos, List<Slots> slots, long heldAtEnd, SlotCounters counters) {
    double fps() {
      return frames * 1e9 / endNanos;
    }
  }

  /**
   * Runs Valley alone on one vCPU and a GPU of its own: CPU and GPU work overlap, so a frame lasts the longer of
   * its CPU and GPU parts; a Malloc is answered by the policy at once and the guest told what its VM holds.
   */
  private static Run run(String policyName) {
    GttMemoryPolicy policy = (GttMemoryPolicy) PolicyCatalog.builtIn().create(PolicyKind.MEMORY, policyName, SlotParams.of());
    policy.addVm(0, "valley", 0);
    Program program = WorkloadCatalog.get("valley").start(1);
    MemoryAware guest = (MemoryAware) program;
    List<Slots> slots = new ArrayList<>(List.of(new Slots(0, policy.ranges().get(0).size())));
    long t = 0;
    long cpu = 0;
    long gpu = 0;
    long frames = 0;
    for (Step step = program.next(t); step != null; step = program.next(t)) {
      if (step instanceof Step.Malloc m) {
        policy.allocate(0, m.bytes(), t);
        guest.held(policy.allocated(0));
        int now = policy.ranges().get(0).size();
        if (now != slots.get(slots.size() - 1).slots()) {
          slots.add(new Slots(t, now));
        }
      } else if (step instanceof Step.Free f) {
        policy.free(0, f.bytes(), t);
      } else if (step instanceof Step.CpuBurst b) {
        cpu += b.nanos();
      } else if (step instanceof Step.LaunchKernel l) {
        gpu += l.kernel().soloNanos();
      } else if (step instanceof Step.SyncCall c) {
        // a wait for the GPU (the driver returning objects): what is running ends first
        gpu += c.kernel().soloNanos();
        t += Math.max(cpu, gpu);
        cpu = 0;
        gpu = 0;
      } else if (step instanceof Step.Present p) {
        gpu += p.tail().soloNanos();
        t += Math.max(cpu, gpu);
        cpu = 0;
        gpu = 0;
        frames++;
      }
    }
    assertEquals(List.of(), policy.checkInvariants());
    return new Run(frames, t, slots, policy.allocated(0), policy.counters());
  }

  @Test
  void figure9_slotsRiseThreeAt2sIntervals_thenOneEverySeveralScenes_to13() {
    List<Slots> slots = run("gballoon").slots();
    // 6 slots (384 MB) at the start; scene 1 needs 9: one slot at each request, 2 s apart; then one slot when
    // scenes 4, 7, 10 and 14 begin (13 s each): 12 slots from the 10th scene, 13 (832 MB) at most.
    long[] at = {0, 0, 2 * S, 4 * S, 39 * S, 78 * S, 117 * S, 169 * S};
    assertEquals(at.length, slots.size(), slots.toString());
    for (int i = 0; i < at.length; i++) {
      assertEquals(6 + i, slots.get(i).slots());
      long late = slots.get(i).atNanos() - at[i];
      // the guest asks before its next frame: up to a frame late, which adds up over the two asks 2 s apart (scene 1
      // with 7 of 9 slots: 1/30 s and 2 slots' pages re-bound; with 8 of 9: 1/30 s and 1 slot's)
      long lateAtMost = 2 * S / 30 + 3 * 16_384 * ObjectReturns.PAGE_NANOS + 100_000_000L;
      assertTrue(late >= 0 && late < lateAtMost, "slot " + (6 + i) + " at " + slots.get(i).atNanos()
          + " ns, expected within a frame of " + at[i]);
    }
  }

  @Test
  void figure10_gballoonIsWithin2PercentOfGvirt1024_slightlyBelow() {
    // §4.4: "the overall performance of the gBalloon is lower by approximately 1.9 % than that of the gVirt",
    // because the first scene's slots come one by one (the row ObjectReturns' page cost was fitted on, with Figures 6
    // and 8: this checks that the fitted model is what runs).
    Run gballoon = run("gballoon");
    Run gvirt = run("static-1024");
    double ratio = gballoon.fps() / gvirt.fps();
    assertTrue(ratio < 1 && ratio > 0.98, "gBalloon / gVirt-1024 FPS = " + ratio);
    assertEquals(234 * S, gvirt.endNanos(), 40_000_000L);
    assertEquals(7, gballoon.counters().expansions());
    assertEquals(0, gballoon.heldAtEnd(), "Valley frees its memory when it ends");
  }

  @Test
  void valleyIn384Mb_alone_isSlowedByReBindingWhatItReturns() {
    // §3.1: lacking memory, the guest driver returns objects every frame ("the performance ... is degraded because the
    // same objects are frequently returned"), in eviction rounds that each wait for the GPU and then re-bind the
    // round's pages (ObjectReturns): a frame takes at least its re-binding's CPU time, 3 slots' pages at the least
    // (9 slots needed, 6 held).
    Run at384 = run("static-384");
    Run at1024 = run("static-1024");
    assertEquals(30, at1024.fps(), 0.05, "30 FPS alone with all its memory");
    double rebindAtLeast = 3 * 16_384 * ObjectReturns.PAGE_NANOS / 1e9;
    assertTrue(at384.fps() <= 1 / rebindAtLeast, "gVirt-384 alone " + at384.fps());
    assertTrue(at384.fps() < at1024.fps());
    // The guest asks again every 2 s for 234 s and is refused each time: 234 s / 2 s at most, fewer as each ask waits for a frame to end (7 slots' pages re-bound at most)
    double frameAtMost = 1 / 30.0 + 0.006 + 7 * 16_384 * ObjectReturns.PAGE_NANOS / 1e9;
    long refused = at384.counters().expansionsRefused();
    assertTrue(refused <= 118 && refused >= 234 / (2 + frameAtMost), refused + " refused");
    assertEquals(new Slots(0, 6), at384.slots().get(0));
    assertEquals(1, at384.slots().size(), "gVirt-384 never changes a VM's slots");
  }
}
