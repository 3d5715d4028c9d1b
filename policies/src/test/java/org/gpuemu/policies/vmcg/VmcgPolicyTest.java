package org.gpuemu.policies.vmcg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.stream.Collectors;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class VmcgPolicyTest {
  private static final long MS = 1_000_000;

  private VmcgPolicy policy;
  private long nextId;

  private VmcgPolicy vmcg(long totalCredits, long maxInflight, int vgpus) {
    int[] weights = new int[vgpus];
    java.util.Arrays.fill(weights, 1);
    return vmcg(totalCredits, maxInflight, weights);
  }

  private VmcgPolicy vmcg(long totalCredits, long maxInflight, int... weights) {
    policy = new VmcgPolicy(PolicyParams.of(Map.of("max-slice", 16 * MS, "slice-granularity", MS,
        "crbs-per-dispatch", 4L, "total-credits", totalCredits, "max-inflight", maxInflight)));
    for (int v = 0; v < weights.length; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, weights[v]));
    }
    return policy;
  }

  private List<GpuWork> queue(int vgpu, int crbs, long nanos, long now) {
    List<GpuWork> queued = new ArrayList<>();
    for (int i = 0; i < crbs; i++) {
      GpuWork crb = new GpuWork(nextId++, vgpu, nanos, now, false);
      policy.queued(crb, now);
      queued.add(crb);
    }
    return queued;
  }

  private static GpuWork dispatched(GpuDecision decision) {
    return assertInstanceOf(GpuDecision.Dispatch.class, decision).work();
  }

  /** Credits left (credit1) and reallocated (credit2) of one VM, as "left/reallocated". */
  private String credits(int vgpu) {
    ChannelState c = policy.channels().get(vgpu);
    return c.credits() + "/" + c.reallocated();
  }

  @AfterEach
  void invariantsHold() {
    assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void paperExample_crbSharesOf34_33_33_give34_33_33Credits_andSlicesOf16_15_15ms() {
    vmcg(100, 2, 3);
    // §6.3: a teapot VM and two gears VMs with equal priorities; the teapot holds 34 % of the CRBs and, as CPU
    // and GPU processing time are proportional (§5.1), 34 % of the CPU time.
    policy.cpuTimeUsed(0, 34 * MS);
    policy.cpuTimeUsed(1, 33 * MS);
    policy.cpuTimeUsed(2, 33 * MS);
    for (int v = 0; v < 3; v++) {
      policy.resourcesMeasured(v, 0.2, 1.0 / 3);
    }
    queue(0, 34, MS, 0);
    queue(1, 33, MS, 0);
    queue(2, 33, MS, 0);

    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(8 * MS);

    // The engine has reached VM 2 (VM 0 ran 0-4 ms, VM 1 4-8 ms): allocated 34, 33, 33 (credit2), and each has
    // sent its first four CRBs for one credit (credit1).
    assertEquals("0000 1111 22", gpu.vgpus());
    Map<Integer, ChannelState> c = policy.channels();
    assertEquals(List.of("33/34", "32/33", "32/33"), List.of(credits(0), credits(1), credits(2)));
    assertEquals(List.of(16 * MS, 15 * MS, 15 * MS),
        List.of(c.get(0).sliceNanos(), c.get(1).sliceNanos(), c.get(2).sliceNanos()));
    assertEquals(List.of(30, 29, 29), List.of(c.get(0).pendingCrbs(), c.get(1).pendingCrbs(), c.get(2).pendingCrbs()));
    assertEquals(List.of(0, 0, 2), List.of(c.get(0).ringCrbs(), c.get(1).ringCrbs(), c.get(2).ringCrbs()),
        "two of VM 2's four are on the GPU (max-inflight 2)");
    assertEquals(46 * MS, policy.intervalNanos(), "TIME_G = 16 + 15 + 15 ms");
    assertEquals(1, policy.replenishments());
  }

  @Test
  void algorithm1_eachVmSendsFourCrbsPerPeriod_andTheEngineSwitchesOnlyOnceThePhysicalRingIsIdle() {
    vmcg(100, 2, 2);
    policy.cpuTimeUsed(1, 20 * MS); // VM 1 used more CPU: it polls first
    policy.cpuTimeUsed(0, 10 * MS);
    List<GpuWork> a = queue(0, 6, 2 * MS, 0);
    List<GpuWork> b = queue(1, 6, 2 * MS, 0);

    assertEquals(b.get(0), dispatched(policy.next(0, 0)));
    assertEquals(b.get(1), dispatched(policy.next(0, 1)));
    assertInstanceOf(GpuDecision.Idle.class, policy.next(0, 2), "the physical ring holds max-inflight CRBs");
    policy.completed(b.get(0), 2 * MS, 2 * MS);
    assertEquals(b.get(2), dispatched(policy.next(2 * MS, 1)));
    policy.completed(b.get(1), 2 * MS, 4 * MS);
    assertEquals(b.get(3), dispatched(policy.next(4 * MS, 1)));
    policy.completed(b.get(2), 2 * MS, 6 * MS);
    // VM 1's ring is empty: its fifth CRB is still pending (four per credit), and VM 0 must wait for the drain.
    assertInstanceOf(GpuDecision.Idle.class, policy.next(6 * MS, 1));
    assertEquals(1, policy.owner());
    assertEquals(VmcgPolicy.Flag.BUSY, policy.flag());
    policy.completed(b.get(3), 2 * MS, 8 * MS);
    assertEquals(a.get(0), dispatched(policy.next(8 * MS, 0)));
    assertEquals(0, policy.owner());
    assertEquals(1, policy.switches());
    assertEquals(2, policy.channels().get(1).pendingCrbs());
  }

  @Test
  void algorithm1_aVmWithoutCredit_waitsWhileOthersHaveCreditsAndCrbs_untilTheGpuHasRoom() {
    vmcg(4, 1, 2);
    queue(0, 8, MS, 0);
    queue(1, 24, MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(Long.MAX_VALUE);

    // Eq. 2 with CREDIT = 4: VM 0 gets 9/(e + 32) × 4 = 1.04 -> 1 credit, VM 1 25/(e + 32) × 4 = 2.88 -> 3.
    // Period 1 (0-8 ms): four CRBs each. Periods 2 and 3 (8-16 ms): VM 0 has none left and waits, as VM 1 still
    // has credits and CRBs and TIME_G (32 ms) has not elapsed. At 16 ms nobody has credit and the GPU is idle:
    // replenished (VM 0 1 credit, VM 1 3), and both send again.
    assertEquals("0000 1111 1111 1111 0000 1111 1111 1111", gpu.vgpus());
    assertEquals(16 * MS, gpu.dispatchTimes(0).get(4), "VM 0's fifth CRB waited for the replenishment");
    assertEquals(2, policy.replenishments(), "the start-up allocation and the one at 16 ms");
    assertEquals(List.of("0/1", "0/3"), List.of(credits(0), credits(1)));
  }

  @Test
  void replenishment_whenTimeGHasElapsed_reallocatesSpentVms_whileVmsWithCreditsLeftKeepTheirs() {
    vmcg(4, 1, 2);
    queue(0, 8, 3 * MS, 0);
    queue(1, 24, 3 * MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(48 * MS);

    // Credits 1 and 3 as above. Period 1 (0-24 ms): four CRBs each; period 2 (24-36 ms): VM 1 alone, VM 0 waits.
    // Period 3 begins at 36 ms, past TIME_G = 32 ms, with a replenishment although VM 1 still has a credit: VM 0
    // (spent) is reallocated 5/(e + 20) × 4 = 0.88 -> 1, VM 1 keeps its last credit and credit2 = 3. Both send at
    // their turns (36 and 48 ms): VM 1 ends at 0 credits (it would have 2 had it been reallocated 3).
    assertEquals("0000 1111 1111 0000 1", gpu.vgpus());
    assertEquals(2, policy.replenishments());
    assertEquals(List.of("0/1", "0/3"), List.of(credits(0), credits(1)));
  }

  @Test
  void priorities4_2_1_sendFour_twoAndOneTimesPerTurn_withinTheSlice() {
    vmcg(100, 1, 4, 2, 1);
    for (int v = 0; v < 3; v++) {
      queue(v, 40, MS / 2, 0);
    }
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(14 * MS);

    // Half-millisecond CRBs, 16 ms slices: VM 0 (priority 4) sends four times in its turn (16 CRBs, 8 ms), VM 1
    // twice (4 ms), VM 2 once (2 ms), a credit each time; then the next period begins the same way.
    assertEquals("0000 0000 0000 0000 1111 1111 2222 0", gpu.vgpus());
    assertEquals(List.of(4, 2, 1), List.of(policy.sendsPerTurn(0), policy.sendsPerTurn(1), policy.sendsPerTurn(2)));
    // Eq. 2 weighted by priority: (e^0 + 40)/(e + 120) × 100 = 33.41, times 12/7, 6/7 and 3/7: 57, 29, 14.
    assertEquals(List.of("52/57", "27/29", "13/14"), List.of(credits(0), credits(1), credits(2)));
  }

  @Test
  void priorities4_2_1_weighTheCpuTimeTheSlicesAreCutFrom() {
    vmcg(100, 1, 1, 2, 4);
    for (int v = 0; v < 3; v++) {
      policy.cpuTimeUsed(v, 8 * MS); // equal CPU times: weighted 8, 16 and 32 ms
      queue(v, 1, MS, 0);
    }
    new Gpu().ask(0);
    assertEquals(List.of(2, 1, 0), policy.pollingOrder());
    assertEquals(List.of(4 * MS, 8 * MS, 16 * MS),
        policy.channels().values().stream().map(ChannelState::sliceNanos).collect(Collectors.toList()));
  }

  @Test
  void aVmsSendsPerTurn_stopAtTheEndOfItsSlice() {
    vmcg(100, 1, 4, 1);
    queue(0, 40, 2 * MS, 0);
    queue(1, 4, 2 * MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(16 * MS);
    // 2 ms CRBs: four sends would take 32 ms, but VM 0's slice ends at 16 ms, after eight CRBs and two sends.
    assertEquals("0000 0000 1", gpu.vgpus());
    assertEquals(16 * MS, gpu.dispatchTimes(1).get(0));
  }

  @Test
  void slicesBind_whenFourCrbsTakeLongerThanTheSlice() {
    vmcg(100, 1, 2);
    queue(0, 4, 10 * MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(20 * MS);
    // 10 ms CRBs in a 16 ms slice: dispatched at 0 and 10 ms; at 20 ms the slice is over. Alone, VM 0 starts the
    // next period at once, sends nothing new (its pending queue is empty) and serves its two leftovers.
    assertEquals(List.of(0L, 10 * MS, 20 * MS), gpu.dispatchTimes(0));
    assertEquals(2, policy.periods());
  }

  @Test
  void sliceExpiry_leavesCrbsInTheRing_whichGoFirstAtTheVmsNextTurn() {
    vmcg(100, 1, 2);
    policy.cpuTimeUsed(0, 16 * MS);
    policy.cpuTimeUsed(1, 8 * MS); // slices 16 and 8 ms
    queue(0, 4, MS, 0);
    List<GpuWork> b = queue(1, 8, 3 * MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(13 * MS);

    // VM 1 takes the engine at 4 ms and dispatches at 4, 7 and 10 ms; at 13 ms its 8 ms slice is over with its
    // fourth CRB still in its ring. Period 2 (no CPU time reported: 16 ms each) begins with VM 1 sending four more
    // behind it; as nobody else has CRBs VM 1 keeps the engine without a switch, its leftover first.
    assertEquals(List.of(4 * MS, 7 * MS, 10 * MS, 13 * MS), gpu.dispatchTimes(1).subList(0, 4));
    assertEquals(b.get(3).id(), gpu.dispatched.get(7).id());
    assertEquals(4, policy.channels().get(1).ringCrbs(), "the leftover went to the GPU, the four new wait");
    gpu.runUntil(Long.MAX_VALUE);
    assertEquals(List.of(13 * MS, 16 * MS, 19 * MS, 22 * MS, 25 * MS), gpu.dispatchTimes(1).subList(3, 8));
    assertEquals(1, policy.switches());
    // Allocated 61 (9/(e + 12) × 100 = 61.1), then one credit per period for four CRBs: two periods.
    assertEquals("59/61", credits(1));
  }

  @Test
  void crbsArrivingBeforeTheirVmsTurn_goInThisPeriod_thoseArrivingAfterItWaitForTheNext() {
    vmcg(100, 1, 2);
    queue(0, 4, MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(MS);
    queue(1, 1, MS, MS);
    queue(0, 1, MS, MS);
    gpu.ask(MS);
    gpu.runUntil(Long.MAX_VALUE);

    // Period 1, in index order (no CPU time): VM 0's turn began at 0 ms with its four CRBs; VM 1's CRB, queued at
    // 1 ms, is sent at VM 1's turn (4 ms). VM 0's fifth, queued at 1 ms during its own turn, waits for period 2.
    assertEquals("0000 10", gpu.vgpus());
    assertEquals(List.of(4 * MS), gpu.dispatchTimes(1));
    assertEquals(5 * MS, gpu.dispatchTimes(0).get(4));
    assertEquals(2, policy.periods());
  }

  @Test
  void aVmAlone_keepsTheEngineFromPeriodToPeriod_spendingOneCreditPerFourCrbs() {
    vmcg(100, 2, 3);
    queue(2, 10, MS, 0);
    Gpu gpu = new Gpu();
    gpu.ask(0);
    gpu.runUntil(Long.MAX_VALUE);

    assertEquals("2222 2222 22", gpu.vgpus());
    assertEquals(3, policy.periods());
    assertEquals(0, policy.switches());
    // 11/(e + 10) × 100 = 86.5 -> 86 credits, three spent.
    assertEquals("83/86", credits(2));
    assertEquals(VmcgPolicy.Flag.IDLE, policy.flag());
  }

  @Test
  void pollingOrder_followsTheCpuTimeOfThePreviousPeriod_whichIsThenCleared() {
    vmcg(100, 1, 3);
    policy.cpuTimeUsed(0, 5 * MS);
    policy.cpuTimeUsed(1, 20 * MS);
    policy.cpuTimeUsed(2, 4 * MS);
    policy.cpuTimeUsed(2, 6 * MS); // reports add up: 10 ms
    for (int v = 0; v < 3; v++) {
      queue(v, 1, MS, 0);
    }
    Gpu gpu = new Gpu();
    gpu.ask(0);
    assertEquals(List.of(1, 2, 0), policy.pollingOrder());
    assertEquals(List.of(4 * MS, 16 * MS, 8 * MS),
        policy.channels().values().stream().map(ChannelState::sliceNanos).collect(Collectors.toList()));
    gpu.runUntil(Long.MAX_VALUE);

    policy.cpuTimeUsed(0, MS);
    queue(1, 1, MS, 3 * MS);
    gpu.ask(3 * MS);
    assertEquals(List.of(0, 1, 2), policy.pollingOrder(), "only VM 0 used CPU in period 1");
    assertEquals(List.of(16 * MS, MS, MS),
        policy.channels().values().stream().map(ChannelState::sliceNanos).collect(Collectors.toList()));
  }

  @Test
  void timeG_isTheSumOfTheSlicesOfVmsWithCrbs_followingEveryChangeOfTheQueues() {
    vmcg(100, 1, 3);
    assertEquals(0, policy.intervalNanos(), "no CRBs anywhere: no interval");
    List<GpuWork> a = queue(0, 2, MS, 0);
    assertEquals(16 * MS, policy.intervalNanos(), "before any period every slice is the largest");
    queue(2, 2, MS, 0);
    assertEquals(32 * MS, policy.intervalNanos());

    policy.cpuTimeUsed(0, 16 * MS);
    policy.cpuTimeUsed(1, 16 * MS);
    policy.cpuTimeUsed(2, 12 * MS);
    assertEquals(a.get(0), dispatched(policy.next(0, 0)));
    assertEquals(16 * MS + 12 * MS, policy.intervalNanos(), "slices 16, 16 and 12 ms; VM 1 has no CRBs");
    policy.completed(a.get(0), MS, MS);
    assertEquals(a.get(1), dispatched(policy.next(MS, 0)));
    assertEquals(12 * MS, policy.intervalNanos(), "VM 0's last CRB is on the GPU: its V-Channel is empty");
  }

  @Test
  void eq1_entitlesEachVmToItsPartOfTimeG() {
    vmcg(100, 1, 2);
    queue(0, 3, MS, 0);
    queue(1, 1, MS, 0);
    policy.resourcesMeasured(1, 1, 1);
    // TIME_G = 32 ms; parts (e^0 + 3)/(e + 4) and (e^1 + 1)/(e + 4) of 32 ms: 19.05 and 17.71 ms.
    assertEquals(List.of(19_052_490L, 17_710_632L),
        policy.channels().values().stream().map(ChannelState::entitledNanos).collect(Collectors.toList()));
  }

  @Test
  void removingAVm_isRefusedWhileItHasCrbs_andAllowedOnceDrained() {
    vmcg(100, 1, 2);
    List<GpuWork> a = queue(0, 1, MS, 0);
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> policy.removeVgpu(0));
    assertEquals("vmcg: vGPU 0 left with CRBs still in its V-Channel", e.getMessage());

    dispatched(policy.next(0, 0));
    policy.completed(a.get(0), MS, MS);
    policy.removeVgpu(0);
    queue(1, 1, MS, MS);
    assertEquals(1, dispatched(policy.next(MS, 0)).vgpu());
    assertEquals(1, policy.switches(), "another context was loaded");
    assertThrows(IllegalArgumentException.class, () -> policy.cpuTimeUsed(0, MS));
  }

  @Test
  void inputsFromUnknownVmsOrOutOfRange_areRefused() {
    vmcg(100, 1, 1);
    assertThrows(IllegalArgumentException.class, () -> policy.queued(new GpuWork(1, 5, MS, 0, false), 0));
    assertThrows(IllegalArgumentException.class, () -> policy.cpuTimeUsed(0, -1));
    assertThrows(IllegalArgumentException.class, () -> policy.resourcesMeasured(0, 0.5, 1.2));
    assertThrows(IllegalArgumentException.class, () -> policy.addVgpu(new VgpuParams(0, "again", 1)));
  }

  /**
   * A GPU that runs dispatched CRBs one after another, each for its solo time, asking the policy again after every
   * completion as the GpuScheduler actor does.
   */
  private final class Gpu {
    private record Finish(long at, GpuWork work) {}

    final List<GpuWork> dispatched = new ArrayList<>();
    final List<Long> times = new ArrayList<>();
    private final PriorityQueue<Finish> running = new PriorityQueue<>(Comparator.comparingLong(Finish::at));
    private long freeAt;

    void ask(long now) {
      while (policy.next(now, running.size()) instanceof GpuDecision.Dispatch d) {
        dispatched.add(d.work());
        times.add(now);
        freeAt = Math.max(freeAt, now) + d.work().soloNanos();
        running.add(new Finish(freeAt, d.work()));
      }
    }

    void runUntil(long end) {
      while (!running.isEmpty() && running.peek().at() <= end) {
        Finish f = running.poll();
        policy.completed(f.work(), f.work().soloNanos(), f.at());
        ask(f.at());
      }
    }

    /** The vGPU of every dispatch, in groups of four. */
    String vgpus() {
      StringBuilder s = new StringBuilder();
      for (int i = 0; i < dispatched.size(); i++) {
        s.append(i > 0 && i % 4 == 0 ? " " : "").append(dispatched.get(i).vgpu());
      }
      return s.toString();
    }

    List<Long> dispatchTimes(int vgpu) {
      List<Long> at = new ArrayList<>();
      for (int i = 0; i < dispatched.size(); i++) {
        if (dispatched.get(i).vgpu() == vgpu) {
          at.add(times.get(i));
        }
      }
      return at;
    }
  }
}
