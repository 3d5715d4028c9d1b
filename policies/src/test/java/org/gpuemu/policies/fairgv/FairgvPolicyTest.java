package org.gpuemu.policies.fairgv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.GpuDecision;
import org.gpuemu.policies.gpu.GpuWork;
import org.gpuemu.policies.gpu.VgpuParams;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class FairgvPolicyTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  /** The reference.conf defaults of {@code fairgv}, but for a shorter {@code idle-spin} (100 us, not 1 ms). */
  static Map<String, Object> defaults() {
    Map<String, Object> d = new HashMap<>();
    d.put("discipline", "non-preemptive");
    d.put("non-preemptive-slice", 6 * MS);
    d.put("preemptive-slice", 30 * MS);
    d.put("samples", 5L);
    d.put("idle-spin", 100 * US);
    d.put("work-conserving", "true");
    d.put("interactive-sync-calls", 10L);
    d.put("interactive-window", 10 * MS);
    d.put("max-inflight", 2L);
    d.put("slice-above-blocks", 360_000L);
    d.put("sub-kernel-blocks", 1_500L);
    return d;
  }

  private FairgvPolicy policy;
  private GpuBench gpu;

  /** A {@code fairgv} policy with the defaults changed by {@code changes}; vGPU i has weight {@code weights[i]}. */
  private void fairgv(Map<String, Object> changes, int... weights) {
    Map<String, Object> params = defaults();
    params.putAll(changes);
    policy = new FairgvPolicy(PolicyParams.of(params));
    for (int v = 0; v < weights.length; v++) {
      policy.addVgpu(new VgpuParams(v, "vm" + v, weights[v]));
    }
    gpu = new GpuBench(policy);
  }

  /** A synchronous call of {@code vgpu}, tagged by the frontend with {@code vcpu}. */
  private void queueSync(int vgpu, int vcpu) {
    policy.queued(gpu.work(vgpu, 10 * US, true), vcpu, gpu.now);
  }

  @AfterEach
  void invariantsHold() {
    if (policy != null) assertEquals(List.of(), policy.checkInvariants());
  }

  @Test
  void figure4_replaysThroughThePolicy_tagsAndTheWakeUpAt105ms() {
    // Figure 4 with 10 ms quanta: a 10 ms slice and 10 ms requests, so each turn is one request (its usage reaches
    // the slice at its first sample). vGPU 0 plays the paper's vGPU 1 (weight 1), vGPU 1 its vGPU 2 (weight 2).
    fairgv(Map.of("non-preemptive-slice", 10 * MS), 1, 2);
    gpu.queue(0, 10 * MS);
    gpu.queue(0, 10 * MS);
    gpu.queue(1, 10 * MS);
    gpu.queue(1, 10 * MS);
    List<Integer> owners = new ArrayList<>();
    List<Long> tags = new ArrayList<>();
    int previous = -1;
    while (gpu.now < 110 * MS) {
      int v = gpu.dispatches();
      if (previous >= 0) tags.add(policy.startTag(previous)); // the previous turn was charged
      owners.add(v);
      previous = v;
      if (gpu.now == 100 * MS) {
        gpu.now = 105 * MS;
        gpu.queue(0, 10 * MS); // vGPU 0, blocked since 70 ms, becomes runnable
        assertEquals(35 * MS, policy.startTag(0), "its start tag is forced to the virtual time, 35");
        assertInstanceOf(GpuDecision.Idle.class, gpu.next(), "vGPU 1's quantum is still running");
      }
      gpu.completeNext();
      if (v == 1) gpu.queue(1, 10 * MS); // vGPU 1 always has more
      if (gpu.now == 10 * MS) gpu.queue(0, 10 * MS); // vGPU 0's third and last request before it blocks
    }
    assertEquals(0, gpu.dispatches(), "vGPU 0 runs next, at 110 ms");
    tags.add(policy.startTag(1));

    assertEquals(List.of(0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1), owners);
    assertEquals(List.of(10 * MS, 5 * MS, 10 * MS, 20 * MS, 15 * MS, 20 * MS, 30 * MS, 25 * MS, 30 * MS, 35 * MS,
        40 * MS), tags, "finish tags 10, 5, 10, 20, ... as in Figure 4");
  }

  @Test
  void collaborativeTurn_samplesFive_thenRunsTheInferredBatch_andIsChargedItsUsage() {
    fairgv(Map.of(), 1, 1);
    for (int i = 0; i < 40; i++) gpu.queue(0, 200 * US);
    gpu.queue(1, 200 * US);

    assertEquals(0, gpu.dispatches());
    assertInstanceOf(GpuDecision.Idle.class, gpu.next(), "a sampled request is synchronized before the next goes");
    List<Integer> order = gpu.vgpusUntil(6 * MS);

    // 1 + 29 more of vGPU 0: 5 samples (1 ms) and ceil(5 ms / 200 us) = 25 without interposition, then vGPU 1.
    assertEquals(29, order.indexOf(1), order.toString());
    assertEquals(6 * MS, policy.startTag(0), "charged its 30 requests of 200 us at weight 1");
  }

  @Test
  void collaborativeTurn_batchIsPipelined_upToTheHardwareQueue() {
    fairgv(Map.of(), 1);
    for (int i = 0; i < 40; i++) gpu.queue(0, 200 * US);
    for (int i = 0; i < 5; i++) {
      gpu.dispatches();
      gpu.completeNext();
    }
    assertEquals(0, gpu.dispatches());
    assertEquals(0, gpu.dispatches(), "no interposition: a second request goes while the first runs");
    assertInstanceOf(GpuDecision.Idle.class, gpu.next(), "max-inflight 2");
  }

  @Test
  void collaborativeTurn_isForcedToRelease_whenItsSamplesReachTheSlice() {
    fairgv(Map.of(), 1, 1);
    for (int i = 0; i < 10; i++) gpu.queue(0, 2 * MS);
    gpu.queue(1, 200 * US);
    // until vGPU 1, idle from 6.2 ms, would release the GPU at 6.3 ms
    assertEquals(List.of(0, 0, 0, 1), gpu.vgpusUntil(6 * MS + 250 * US), "three 2 ms samples use up 6 ms");
  }

  @Test
  void longKernels_overrunTheirSlice_andFairQueuingCompensates() {
    fairgv(Map.of(), 1, 1);
    gpu.queue(0, 30 * MS);
    gpu.queue(0, 30 * MS);
    for (int i = 0; i < 60; i++) gpu.queue(1, MS);
    List<Integer> order = gpu.vgpusUntil(60 * MS);
    // vGPU 0's 30 ms kernel cannot be preempted; charged 30 ms, it waits until vGPU 1 has had 30 ms too
    // (five 6 ms turns of 1 ms requests), and on equal tags it goes first again.
    assertEquals(0, order.get(0));
    assertEquals(31, order.lastIndexOf(0), order.toString());
    assertEquals(30 * MS, policy.startTag(1));
  }

  @Test
  void workConserving_idleVgpuSpins_thenReleasesTheGpu_andBlocks() {
    fairgv(Map.of(), 1, 1);
    gpu.queue(0, MS);
    gpu.queue(1, MS);
    gpu.queue(1, MS);
    assertEquals(0, gpu.dispatches());
    gpu.completeNext();
    assertEquals(new GpuDecision.WakeAt(MS + 100 * US), gpu.next(), "its ring is empty: it spins 100 us");

    gpu.now = MS + 50 * US;
    gpu.queue(0, MS);
    assertEquals(0, gpu.dispatches(), "a request arrived within the spin: the turn goes on");
    assertEquals(0, policy.switches());
    gpu.completeNext();
    assertEquals(new GpuDecision.WakeAt(2 * MS + 150 * US), gpu.next());

    gpu.now = 2 * MS + 150 * US;
    assertEquals(1, gpu.dispatches(), "released after the spin");
    assertEquals(1, policy.switches());
    // 2 ms of requests and 150 us held idle (50 us + 100 us): the time it reserved the GPU
    assertEquals(2 * MS + 150 * US, policy.startTag(0));
  }

  /**
   * vGPU 0 (weight 3) runs a 6 ms turn behind vGPU 1 and ends it with an empty ring, its start tag 2 ms against
   * vGPU 1's 6 ms; the guest's next request comes {@code after} the turn's end.
   */
  private void turnEndsOnAnEmptyRing_nextRequestAfter(long after) {
    turnEndsOnAnEmptyRing();
    gpu.now = 12 * MS + after;
    gpu.queue(0, 6 * MS);
  }

  /** The set-up of {@link #turnEndsOnAnEmptyRing_nextRequestAfter}, up to vGPU 1's turn at 12 ms. */
  private void turnEndsOnAnEmptyRing() {
    fairgv(Map.of(), 3, 1);
    gpu.queue(1, 6 * MS);
    gpu.queue(1, 6 * MS);
    assertEquals(1, gpu.dispatches());
    gpu.now = MS;
    gpu.queue(0, 6 * MS); // wakes at the virtual time, 0
    gpu.completeNext(); // 6 ms: vGPU 1 charged 6 ms
    assertEquals(0, gpu.dispatches());
    gpu.completeNext(); // 12 ms: vGPU 0 charged 6 / 3 = 2 ms, its ring empty
    assertEquals(1, gpu.dispatches(), "vGPU 0 has no request: vGPU 1's turn");
    assertEquals(2 * MS, policy.startTag(0));
  }

  @Test
  void aTurnEndingOnAnEmptyRing_spinsOnIt_soARequestWithinTheSpinKeepsItsStartTag() {
    turnEndsOnAnEmptyRing_nextRequestAfter(50 * US);
    assertEquals(2 * MS, policy.startTag(0), "still active: it keeps its lag of 4 ms");
  }

  @Test
  void aRingEmptiedJustBeforeTheSliceEnds_spinsOnAfterTheTurnForTheRestOfItsSpin() {
    fairgv(Map.of(), 3, 1);
    gpu.queue(1, 6 * MS);
    gpu.queue(1, 6 * MS);
    assertEquals(1, gpu.dispatches());
    gpu.now = MS;
    gpu.queue(0, 6 * MS - 10 * US);
    gpu.completeNext(); // 6 ms
    assertEquals(0, gpu.dispatches());
    gpu.completeNext(); // 12 ms - 10 us: vGPU 0's ring is empty with 10 us of its slice left, which it spins away
    assertEquals(new GpuDecision.WakeAt(12 * MS), gpu.next());
    gpu.now = 12 * MS;
    assertEquals(1, gpu.dispatches(), "its slice is over: vGPU 1's turn");
    gpu.now = 12 * MS + 50 * US; // 60 us after its ring emptied: still within its 100 us spin
    gpu.queue(0, 6 * MS);
    assertEquals(2 * MS, policy.startTag(0), "still active: it keeps its lag");
  }

  @Test
  void aVgpuRemovedWhileItSpinsOnItsRing_leavesNoSpinBehind() {
    turnEndsOnAnEmptyRing();
    gpu.now = 12 * MS + 50 * US;
    policy.removeVgpu(0);
    gpu.now = 13 * MS; // past the spin's end: nothing is left to block (a removed vGPU would throw)
    assertInstanceOf(GpuDecision.Idle.class, gpu.next(), "vGPU 1's request is running");
  }

  @Test
  void aTurnEndingOnAnEmptyRing_blocksAfterTheSpin_andWakesAtTheVirtualTime() {
    turnEndsOnAnEmptyRing_nextRequestAfter(200 * US);
    assertEquals(6 * MS, policy.startTag(0), "blocked after 100 us of spinning, woken at vGPU 1's 6 ms");
  }

  @Test
  void withoutWorkConserving_idleVgpuPollsUntilItsSliceIsUsedUp() {
    fairgv(Map.of("work-conserving", "false"), 1, 1);
    gpu.queue(0, MS);
    gpu.queue(1, MS);
    gpu.dispatches();
    gpu.completeNext();
    assertEquals(new GpuDecision.WakeAt(6 * MS), gpu.next(), "1 ms used, 5 ms of its slice left to poll away");
    gpu.now = 6 * MS;
    assertEquals(1, gpu.dispatches());
    assertEquals(6 * MS, policy.startTag(0), "charged the whole slice it held");
  }

  @Test
  void gpuCentricCoscheduling_asksForTheVcpuOfAnInteractiveVgpu_onASwitchToIt() {
    fairgv(Map.of(), 1, 1);
    gpu.queue(0, MS);
    for (int i = 0; i < 11; i++) queueSync(1, 5); // 11 synchronous calls in no time: interactive
    assertEquals(0, gpu.dispatches());
    assertEquals(List.of(), policy.takeCoscheduleRequests(), "vGPU 0 is not interactive");

    assertEquals(1, gpu.runUntil(MS + 100 * US).get(0).work().vgpu());
    // Waiting 1.1 ms for the GPU did not age its calls: they are within 10 ms of its own time.
    assertTrue(policy.interactive(1, gpu.now));
    assertEquals(List.of(new CoscheduleRequest(1, OptionalInt.of(5), MS + 100 * US)),
        policy.takeCoscheduleRequests());
    assertEquals(List.of(), policy.takeCoscheduleRequests(), "taken once");
    assertEquals(1, policy.coscheduled());

    gpu.runUntil(10 * MS); // vGPU 1 runs its 11 calls, idles and blocks; nobody else has work
    queueSync(1, 5);
    gpu.runUntil(20 * MS);
    assertEquals(List.of(), policy.takeCoscheduleRequests(), "vGPU 1 again after itself: no context switch");
  }

  @Test
  void coscheduleRequest_withoutAFrontendTag_leavesTheVcpuToTheEmulator() {
    fairgv(Map.of(), 1, 1);
    gpu.queue(0, MS);
    for (int i = 0; i < 11; i++) policy.queued(gpu.work(1, 10 * US, true), gpu.now);
    gpu.runUntil(2 * MS);
    assertEquals(List.of(new CoscheduleRequest(1, OptionalInt.empty(), MS + 100 * US)),
        policy.takeCoscheduleRequests());
  }

  @Test
  void preemptiveDiscipline_timesTurnsBy30msOfWallTime_withoutSampling() {
    fairgv(Map.of("discipline", "preemptive"), 1, 1);
    for (int i = 0; i < 10; i++) gpu.queue(0, 10 * MS);
    gpu.queue(1, MS);
    assertEquals(0, gpu.dispatches());
    assertEquals(0, gpu.dispatches(), "pipelined at once");
    // dispatched at 0, 0, 10 and 20 ms (before the 30 ms slice ends); the last finishes at 40 ms, then vGPU 1.
    assertEquals(List.of(0, 0, 1), gpu.vgpusUntil(40 * MS));
    assertEquals(40 * MS, policy.startTag(0));
  }

  @Test
  void weights_shareTheGpuInProportion() {
    fairgv(Map.of(), 1, 3);
    for (int i = 0; i < 2_000; i++) {
      gpu.queue(0, 100 * US);
      gpu.queue(1, 100 * US);
    }
    List<Integer> order = gpu.vgpusUntil(120 * MS);
    long zero = order.stream().filter(v -> v == 0).count();
    assertEquals(3.0, (double) (order.size() - zero) / zero, 0.1, "weights 1:3, 6 ms turns of 100 us requests");
  }

  @Test
  void parameters_areCheckedWhenBuilt() {
    Map<String, Object> bad = defaults();
    bad.put("discipline", "sometimes");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new FairgvPolicy(PolicyParams.of(bad)));
    assertEquals("fairgv: parameter 'discipline' must be one of non-preemptive, preemptive, got sometimes",
        e.getMessage());
    Map<String, Object> flag = defaults();
    flag.put("work-conserving", "yes");
    assertThrows(IllegalArgumentException.class, () -> new FairgvPolicy(PolicyParams.of(flag)));
  }

  @Test
  void registry_buildsFairgv_withHybridSpinningGuests_andKernelSlicing() {
    FairgvPolicy p = (FairgvPolicy) PolicyCatalog.builtIn().create(PolicyKind.GPU, "fairgv", PolicyParams.of(defaults()));
    assertEquals(GuestWait.HYBRID, p.guestWait());
    assertEquals(540, p.slice(new KernelSpec("mm-900", KernelType.CD, 810_000, 81_030 * MS)).size());
    KernelSpec small = KernelSpec.cd("mm", 207 * US);
    assertEquals(List.of(small), p.slice(small));
  }

  @Test
  void drainedVgpu_mayLeave_oneWithQueuedWorkMayNot() {
    fairgv(Map.of(), 1, 1);
    gpu.queue(0, MS);
    gpu.queue(1, MS);
    assertThrows(IllegalStateException.class, () -> policy.removeVgpu(1));
    gpu.runUntil(MS);
    policy.removeVgpu(0); // the owner, drained and spinning
    assertEquals(1, gpu.dispatches());
    gpu.runUntil(5 * MS);
  }

  @Test
  void requestOfAnUnknownVgpu_isRefused() {
    fairgv(Map.of(), 1);
    GpuWork stray = gpu.work(3, MS, false);
    assertThrows(IllegalArgumentException.class, () -> policy.queued(stray, 0));
  }
}
