package org.gpuemu.emulator.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import org.junit.jupiter.api.Test;

/** The core's rules at nanosecond precision, without actors: the model's effects are recorded and replayed here. */
class CoreModelTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final long SWITCH = 3_800;

  /** An answer the model gave: vCPU, CPU time run, steal, end. */
  private record Answer(int vcpu, long ran, long steal, long end) {}

  /** Drives a model the way the actor does: the slice timer fires at its due time when nothing comes first. */
  private static final class Bench implements CoreModel.Effects<String> {
    final List<Answer> answers = new ArrayList<>();
    /** The CPU time left of each answered request (0: done; more: taken back). */
    final List<Long> left = new ArrayList<>();
    final List<String> switchedTo = new ArrayList<>();
    final CoreModel<String> model;
    long token = -1;
    long due = Long.MAX_VALUE;

    Bench(long switchNanos) {
      this(switchNanos, 0, 0);
    }

    /** A model whose counters start where a crashed incarnation's stopped. */
    Bench(long switchNanos, long busy, long switches) {
      model = new CoreModel<>(PolicyCatalog.builtIn().create(PolicyKind.CPU, "weighted-fair", PolicyParams.of(
          Map.of("period", 6 * MS, "min-granularity", 750 * US, "wakeup-granularity", MS))), switchNanos, this, busy,
          switches);
    }

    @Override public void armSlice(long token, long due) {
      this.token = token;
      this.due = due;
    }

    @Override public void disarmSlice() {
      due = Long.MAX_VALUE;
    }

    @Override public void done(String to, int vcpu, long ran, long steal, long end, long remaining) {
      answers.add(new Answer(vcpu, ran, steal, end));
      left.add(remaining);
    }

    @Override public void switchedTo(int vcpu, long now) {
      switchedTo.add(vcpu + "@" + now);
    }

    /** Fires the slice timer; the answer it gave, if any. */
    Answer fire() {
      int before = answers.size();
      long at = due;
      due = Long.MAX_VALUE;
      model.sliceEnded(token, at);
      return answers.size() > before ? answers.get(answers.size() - 1) : null;
    }
  }

  @Test
  void aGuestThatGoesOnAtOnce_keepsTheCoreForItsSlice_andPaysOneSwitch() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, 100 * US, "a", 0);
    b.model.run(1, 1, 10 * MS, "b", 0);
    // vCPU 0 picked alone: a 6 ms slice, after one switch (3.8 us)
    assertEquals(new Answer(0, 100 * US, SWITCH, SWITCH + 100 * US), b.fire());
    for (int i = 0; i < 10; i++) {
      long end = b.answers.get(b.answers.size() - 1).end();
      b.model.run(0, 1, 100 * US, "a", end); // its next step at the same model time: no switch, no re-pick
      Answer next = b.fire();
      assertEquals(0, next.vcpu(), "step " + i + " stays on vCPU 0 although vCPU 1 waits with less runtime");
      assertEquals(end + 100 * US, next.end());
    }
    assertEquals(1, b.model.switches(), "only the first start switched");
    b.model.release(0, b.answers.get(b.answers.size() - 1).end());
    assertEquals(2, b.model.switches(), "its guest blocked: the core switches to vCPU 1");
    assertEquals(List.of("0@0", "1@" + (SWITCH + 11 * 100 * US)), b.switchedTo);
  }

  @Test
  void aSpinThatYields_givesTheCoreToTheNextVcpu_andComesBackBehindIt() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, 100 * US, "spin-a", 0); // vCPU 0 spins 100 us for a reply
    b.model.run(1, 1, 10 * MS, "b", 0);
    Answer spun = b.fire();
    assertEquals(SWITCH + 100 * US, spun.end());
    // no reply: instead of going on in its slice, it yields and asks to spin again
    b.model.run(0, 1, 100 * US, "spin-a", spun.end(), true);
    assertEquals(2, b.model.switches(), "the yield switched to vCPU 1");
    assertEquals(List.of("0@0", "1@" + spun.end()), b.switchedTo);
    b.model.finish(0, spun.end() + MS); // its reply comes while vCPU 1 runs: seen once it is picked again
    assertEquals(null, b.fire(), "vCPU 1's slice (half the 6 ms period) ends, its work not done");
    // vCPU 0, the skip buddy, is 2.9 ms behind vCPU 1 (more than the 1 ms granularity): it is picked and sees it
    Answer seen = b.fire();
    assertEquals(0, seen.vcpu());
    assertEquals(spun.end() + SWITCH + 3 * MS + SWITCH, seen.end());
    assertEquals(3, b.model.switches());
  }

  @Test
  void aYieldWithNobodyElseRunnable_goesOnWithoutASwitch() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, 100 * US, "spin-a", 0);
    Answer spun = b.fire();
    b.model.run(0, 1, 100 * US, "spin-a", spun.end(), true);
    assertEquals(new Answer(0, 100 * US, 0, spun.end() + 100 * US), b.fire());
    assertEquals(1, b.model.switches(), "sched_yield returns at once: the same context goes on");
  }

  @Test
  void aWakingVcpuThatPreemptsTheHolder_takesTheCore_theHolderQueuesAgain() {
    Bench b = new Bench(0);
    b.model.run(1, 1, 500 * US, "b", 0);
    b.fire();
    b.model.release(1, 500 * US); // vCPU 1 blocks with 0.5 ms of runtime
    b.model.run(0, 1, 3 * MS, "a", 500 * US);
    assertEquals(3500 * US, b.fire().end());
    // vCPU 1 wakes while vCPU 0 holds the core, 3 ms ahead (more than the 1 ms wakeup granularity): it preempts
    b.model.run(1, 1, MS, "b", 3500 * US);
    b.model.run(0, 1, MS, "a", 3500 * US); // the former holder's next request queues behind it
    Answer first = b.fire();
    assertEquals(1, first.vcpu());
    assertEquals(4500 * US, first.end());
  }

  @Test
  void hostWork_preemptsTheHolder_andPaysItsOwnSwitch() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, MS, "a", 0);
    b.fire();
    long t = SWITCH + MS;
    b.model.hostRun(500 * US, "host", t);
    Answer host = b.fire();
    assertEquals(CoreModel.HOST, host.vcpu());
    assertEquals(t + SWITCH + 500 * US, host.end());
    assertEquals(2, b.model.switches());
  }

  @Test
  void anAnswerThatCameWhileTheVcpuWaited_isSeenAfterTheSwitchThatBringsItBack() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, Long.MAX_VALUE, "spin-a", 0); // spins (poll)
    b.model.run(1, 1, Long.MAX_VALUE, "spin-b", 0);
    b.model.finish(1, 10 * US); // vCPU 1's answer, while vCPU 0 spins on the core: seen once vCPU 1 is picked
    assertEquals(List.of(), b.answers);
    b.fire(); // vCPU 0 was picked alone (a 6 ms slice); at its end vCPU 1 is picked and pays a switch
    Answer seen = b.fire();
    assertEquals(1, seen.vcpu());
    assertEquals(SWITCH + 6 * MS + SWITCH, seen.end(), "after its switch back onto the core");
  }

  @Test
  void withdraw_answersWithTheCpuTimeLeft_waitingOrRunning_andTheCoreGoesOn() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, 10 * MS, "a", 0); // picked alone: a 6 ms slice after one switch
    b.model.run(1, 1, 2 * MS, "b", 0); // waits (no preemption: equal runtimes)
    long dueBefore = b.due;
    b.model.withdraw(1, 500 * US); // the waiting one: nothing ran, all of it left, the wait was steal
    assertEquals(List.of(new Answer(1, 0, 500 * US, 500 * US)), b.answers);
    assertEquals(List.of(2 * MS), b.left);
    assertEquals(dueBefore, b.due, "vCPU 0's slice goes on untouched");
    b.model.withdraw(0, MS); // the running one: what it ran up to the withdrawal, the rest left
    assertEquals(new Answer(0, MS - SWITCH, SWITCH, MS), b.answers.get(1));
    assertEquals(10 * MS - (MS - SWITCH), b.left.get(1));
    assertEquals(Long.MAX_VALUE, b.due, "no request left: the core idles");
    assertEquals(MS, b.model.busyNanos(), "the switch and the CPU time run");
    b.model.withdraw(0, MS); // nothing there any more: nothing happens
    assertEquals(2, b.answers.size());
    // it asks again for the rest at once, on a core that idled since: the same context goes on, no switch
    b.model.run(0, 1, b.left.get(1), "a", MS);
    assertEquals(null, b.fire(), "a first 6 ms slice");
    assertEquals(new Answer(0, 10 * MS - (MS - SWITCH), 0, MS + 10 * MS - (MS - SWITCH)), b.fire());
    assertEquals(0L, b.left.get(2));
    assertEquals(1, b.model.switches());
    assertEquals(List.of("0@0"), b.switchedTo);
  }

  @Test
  void withdraw_ofAVcpuHoldingTheCore_releasesIt_atTheEndOfItsRequest() {
    Bench b = new Bench(SWITCH);
    b.model.run(0, 1, MS, "a", 0);
    b.model.run(1, 1, MS, "b", 0);
    assertEquals(new Answer(0, MS, SWITCH, SWITCH + MS), b.fire()); // vCPU 0 holds the core
    assertEquals(Long.MAX_VALUE, b.due, "held: nothing picked until vCPU 0 says more");
    b.model.withdraw(0, SWITCH + MS); // it crashes before saying: it blocks, and vCPU 1 gets the core
    assertTrue(!b.model.holds(0));
    assertEquals(new Answer(1, MS, SWITCH + MS + SWITCH, SWITCH + MS + SWITCH + MS), b.fire());
    assertEquals(2, b.model.switches());
  }

  @Test
  void takeBackAll_answersEveryRequest_runningFirst_thenHostWork_thenByVcpu_andTheCountersGoOn() {
    Bench b = new Bench(SWITCH);
    b.model.run(1, 1, 10 * MS, "b", 0); // picked alone, runs from the switch's end
    b.model.run(0, 1, 2 * MS, "a", 0); // waits
    b.model.hostRun(500 * US, "host", MS); // preempts vCPU 1 at 1 ms, runs after its own switch
    b.model.hostRun(300 * US, "host2", MS); // queued behind it
    long crash = MS + SWITCH + 100 * US;
    b.model.takeBackAll(crash);
    assertEquals(List.of(new Answer(CoreModel.HOST, 100 * US, SWITCH, crash), // the running host work
        new Answer(CoreModel.HOST, 0, crash - MS, crash), // the queued host work
        new Answer(0, 0, crash, crash), // the waiting vCPUs by number
        new Answer(1, MS - SWITCH, crash - (MS - SWITCH), crash)), b.answers);
    assertEquals(List.of(400 * US, 300 * US, 2 * MS, 10 * MS - (MS - SWITCH)), b.left);
    assertEquals(Long.MAX_VALUE, b.due, "the core idles: its policy is done with");
    assertEquals(2, b.model.switches());
    assertEquals(MS + SWITCH + 100 * US, b.model.busyNanos());
    // the next incarnation: a fresh policy, the counters where they were; the vCPUs ask again for what was left
    Bench next = new Bench(SWITCH, b.model.busyNanos(), b.model.switches());
    next.model.run(0, 1, 2 * MS, "a", crash);
    assertEquals(new Answer(0, 2 * MS, SWITCH, crash + SWITCH + 2 * MS), next.fire());
    assertEquals(3, next.model.switches(), "its first start after the crash is a switch");
    assertEquals(MS + SWITCH + 100 * US + SWITCH + 2 * MS, next.model.busyNanos());
  }
}
