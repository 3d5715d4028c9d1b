package org.gpuemu.emulator.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.FaultPlan;
import org.junit.jupiter.api.Test;

/** The checker on hand-made histories: lost, duplicated and unexplained requests make a run invalid. */
class CheckerTest {
  private static final long S = 1_000_000_000L;

  private static RequestHistory history() {
    return new RequestHistory(List.of("vm1", "vm2"));
  }

  private static FaultInjector.Record struck(int id, FaultPlan.Kind kind, String target, long at) {
    return new FaultInjector.Record(new FaultPlan.Fault(id, kind, at, target, 0), at, at, -1);
  }

  @Test
  void everyRequestSettledOnce_isValid() {
    RequestHistory h = history();
    long a = h.submitted(0, 0);
    long b = h.submitted(1, 0);
    h.completed(0, a, S);
    h.completed(1, b, S);
    Checker.Outcome o = Checker.check(h.snapshot(), List.of(), true);
    assertEquals("valid", o.verdict().result(), o.verdict().reasons().toString());
    assertEquals(0, o.duplicated());
    assertEquals(0, o.lost());
  }

  @Test
  void aLostRequest_afterTheGpuDrained_isInvalid() {
    RequestHistory h = history();
    h.completed(0, h.submitted(0, 0), S);
    h.submitted(0, 2 * S); // never settled
    Checker.Outcome o = Checker.check(h.snapshot(), List.of(), true);
    assertEquals("invalid", o.verdict().result());
    assertEquals(1, o.lost());
    assertTrue(o.verdict().reasons().get(0).startsWith("vm1: 1 requests lost"), o.verdict().reasons().toString());
    assertTrue(o.verdict().reasons().get(0).contains("request 1 submitted at 2.0 s has no outcome"),
        o.verdict().reasons().toString());
  }

  @Test
  void anOpenRequest_whenTheDrainTimedOut_isUnknown_notInvalid() {
    RequestHistory h = history();
    h.submitted(1, 0);
    Checker.Outcome o = Checker.check(h.snapshot(), List.of(), false);
    assertEquals("unknown", o.verdict().result());
    assertTrue(o.verdict().reasons().get(0).startsWith("vm2: 1 requests still open"), o.verdict().reasons().toString());
  }

  @Test
  void aRequestSettledTwice_isADuplicate_andInvalid() {
    RequestHistory h = history();
    long a = h.submitted(1, 0);
    h.completed(1, a, S);
    h.completed(1, a, 2 * S); // it ran twice
    Checker.Outcome o = Checker.check(h.snapshot(), List.of(), true);
    assertEquals("invalid", o.verdict().result());
    assertEquals(1, o.duplicated());
    assertEquals(0, o.lost());
    assertTrue(o.verdict().reasons().get(0).contains("request 0 completed at 2.0 s, after it was settled already"),
        o.verdict().reasons().toString());
  }

  @Test
  void aRequestCompletedAndFailed_isADuplicate_andAnIdNeverSubmitted_isInvalidToo() {
    RequestHistory h = history();
    long a = h.submitted(0, 0);
    h.completed(0, a, S);
    h.failed(0, a, "vgpu-crashed", S);
    h.completed(0, 7, S);
    Checker.Outcome o = Checker.check(h.snapshot(), List.of(struck(0, FaultPlan.Kind.VGPU_CRASH, "vm1", 0)), true);
    assertEquals("invalid", o.verdict().result());
    assertEquals(2, o.duplicated(), "one settled twice, one never submitted");
  }

  @Test
  void aFailureNoFaultExplains_isInvalid_evenWithAFaultOfAnotherKindOrVm() {
    RequestHistory h = history();
    h.failed(0, h.submitted(0, 0), "gpu-reset", 3 * S);
    // a hang of the other VM, a crash of this one, and a hang of this one after the failure: none explains it
    List<FaultInjector.Record> faults = List.of(struck(0, FaultPlan.Kind.GPU_HANG, "vm2", S),
        struck(1, FaultPlan.Kind.VGPU_CRASH, "vm1", S), struck(2, FaultPlan.Kind.GPU_HANG, "vm1", 4 * S));
    Checker.Outcome o = Checker.check(h.snapshot(), faults, true);
    assertEquals("invalid", o.verdict().result());
    assertEquals(List.of("vm1: 1 requests failed 'gpu-reset' that no fault explains"), o.unattributed());
  }

  @Test
  void aFailure_isTheLatestMatchingFaults_andASharedActorsFault_explainsEveryVm() {
    RequestHistory h = history();
    h.failed(0, h.submitted(0, 0), "vgpu-crashed", 2 * S);
    h.failed(0, h.submitted(0, 0), "vgpu-crashed", 5 * S);
    h.failed(1, h.submitted(1, 0), "smgroup-crashed", 3 * S);
    List<FaultInjector.Record> faults = List.of(struck(0, FaultPlan.Kind.VGPU_CRASH, "vm1", 2 * S),
        struck(1, FaultPlan.Kind.VGPU_CRASH, "vm1", 4 * S), struck(2, FaultPlan.Kind.SMGROUP_CRASH, "vm1", 3 * S));
    Checker.Outcome o = Checker.check(h.snapshot(), faults, true);
    assertEquals("valid", o.verdict().result(), o.verdict().reasons().toString());
    assertEquals(Map.of("vgpu-crashed", 1L), o.failedByFault().get(0));
    assertEquals(Map.of("vgpu-crashed", 1L), o.failedByFault().get(1));
    // an SM group is shared: its crash fails vm2's kernel though it targeted vm1
    assertEquals(Map.of("smgroup-crashed", 1L), o.failedByFault().get(2));
  }

  @Test
  void noHistory_isUnknown() {
    Checker.Outcome o = Checker.check(RequestHistory.Snapshot.EMPTY, List.of(), true);
    assertEquals("unknown", o.verdict().result());
  }

  @Test
  void aHundredThousandRequests_allSettled_leaveNothingOpenAndNoAnomaly() {
    RequestHistory h = history();
    for (int i = 0; i < 100_000; i++) h.completed(0, h.submitted(0, i), i + 1);
    RequestHistory.VmHistory vm1 = h.snapshot().vms().get(0);
    assertEquals(100_000, vm1.submitted());
    assertEquals(100_000, vm1.completed());
    assertEquals(0, vm1.lost());
    assertTrue(vm1.anomalies().isEmpty());
  }
}
