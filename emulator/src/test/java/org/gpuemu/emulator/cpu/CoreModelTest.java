package org.gpuemu.emulator.cpu;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
    final List<String> switchedTo = new ArrayList<>();
    final CoreModel<String> model;
    long token = -1;
    long due = Long.MAX_VALUE;

    Bench(long switchNanos) {
      model = new CoreModel<>(PolicyCatalog.builtIn().create(PolicyKind.CPU, "weighted-fair", PolicyParams.of(
          Map.of("period", 6 * MS, "min-granularity", 750 * US, "wakeup-granularity", MS))), switchNanos, this);
    }

    @Override public void armSlice(long token, long due) {
      this.token = token;
      this.due = due;
    }

    @Override public void disarmSlice() {
      due = Long.MAX_VALUE;
    }

    @Override public void done(String to, int vcpu, long ran, long steal, long end) {
      answers.add(new Answer(vcpu, ran, steal, end));
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
}
