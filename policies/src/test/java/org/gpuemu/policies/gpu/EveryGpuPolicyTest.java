package org.gpuemu.policies.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyKind;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.stream.Stream;
import org.gpuemu.policies.PolicyParams;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Properties every registered GPU policy must have, run through seeded random streams of events. */
class EveryGpuPolicyTest {
  private static final long MS = 1_000_000;
  private static final int VGPUS = 3;
  private static final int REQUESTS = 2_000;

  /** A policy at the defaults its spec declares: a new policy needs no edit here. */
  private static GpuPolicy create(String name) {
    return PolicyCatalog.builtIn().spec(PolicyKind.GPU, name).create(params(name));
  }

  private static PolicyParams params(String name) {
    return PolicyCatalog.builtIn().spec(PolicyKind.GPU, name).defaults();
  }

  static Stream<Arguments> policiesAndSeeds() {
    return PolicyCatalog.builtIn().names(PolicyKind.GPU).stream().flatMap(name -> Stream.of(1L, 2L, 3L).map(seed -> Arguments.of(name, seed)));
  }

  static Stream<String> policies() {
    return PolicyCatalog.builtIn().names(PolicyKind.GPU).stream();
  }

  @ParameterizedTest(name = "{0}, seed {1}")
  @MethodSource("policiesAndSeeds")
  void everyPolicy_dispatchesEachQueuedRequestExactlyOnce_andCompletesIt(String name, long seed) {
    GpuPolicy policy = create(name);
    Run run = Run.of(policy, seed);

    assertEquals(REQUESTS, run.dispatches.size(), name + " dispatched " + run.dispatches.size() + " of " + REQUESTS);
    assertEquals(REQUESTS, run.completed, name + " completed " + run.completed + " of " + REQUESTS);
    for (Map.Entry<Long, Integer> e : run.timesDispatched.entrySet()) {
      assertEquals(1, e.getValue(), name + " dispatched request " + e.getKey() + " more than once");
    }
    assertEquals(List.of(), policy.checkInvariants());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void everyPolicy_decidesTheSameWay_forTheSameSeed(String name) {
    Run first = Run.of(create(name), 42);
    Run second = Run.of(create(name), 42);
    assertEquals(first.dispatches, second.dispatches);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void everyPolicy_reportsItsRegistryName(String name) {
    assertEquals(name, create(name).name());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void everyPolicy_neverExceedsMaxInflight(String name) {
    Run run = Run.of(create(name), 7);
    assertTrue(run.peakInflight <= params(name).count("max-inflight"), name + " peaked at " + run.peakInflight);
  }

  /**
   * A weight and a share changed halfway (the live dashboard's controls): every policy applies each or refuses it
   * with a reason, and still dispatches and completes every request exactly once with its invariants whole.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("policies")
  void everyPolicy_appliesOrRefusesALiveWeightAndShareChange_andLosesNothing(String name) {
    GpuPolicy policy = create(name);
    List<LiveChange> outcomes = new ArrayList<>();
    Run run = Run.of(policy, 5, REQUESTS / 2, (p, now) -> {
      outcomes.add(p.setWeight(1, 5, now));
      outcomes.add(p.setShare(2, 0.25, now));
    });
    for (LiveChange c : outcomes) {
      if (c instanceof LiveChange.Refused r) assertTrue(r.reason().startsWith(name), name + ": " + r.reason());
    }
    assertEquals(REQUESTS, run.dispatches.size(), name + " dispatched " + run.dispatches.size() + " of " + REQUESTS);
    assertEquals(REQUESTS, run.completed);
    assertEquals(List.of(), policy.checkInvariants());
  }

  /**
   * One emulated GPU that runs dispatched requests one after another, fed by random arrivals on {@link #VGPUS}
   * vGPUs (vGPU 0 busier than the others, so queues build up). Events are processed in time order; after each the
   * policy is asked until it stops dispatching, as the GpuScheduler actor does.
   */
  private static final class Run {
    final List<String> dispatches = new ArrayList<>();
    final Map<Long, Integer> timesDispatched = new HashMap<>();
    int completed;
    int peakInflight;

    private record Finish(long at, GpuWork work) {}

    static Run of(GpuPolicy policy, long seed) {
      return of(policy, seed, -1, (p, now) -> { });
    }

    /** As {@link #of(GpuPolicy, long)}; {@code change} is applied to the policy once {@code after} requests came. */
    static Run of(GpuPolicy policy, long seed, int after, java.util.function.ObjLongConsumer<GpuPolicy> change) {
      Run run = new Run();
      run.drive(policy, new Random(seed), after, change);
      return run;
    }

    private void drive(GpuPolicy policy, Random rnd, int changeAfter, java.util.function.ObjLongConsumer<GpuPolicy> change) {
      for (int v = 0; v < VGPUS; v++) {
        policy.addVgpu(new VgpuParams(v, "vm" + v, 1 + v));
      }
      PriorityQueue<Finish> running = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
      long gpuFreeAt = 0;
      long nextArrival = 0;
      long wakeAt = Long.MAX_VALUE;
      int queued = 0;
      for (int steps = 0; ; steps++) {
        if (steps > 100 * REQUESTS) {
          fail(policy.name() + " made no progress: " + queued + " queued, " + dispatches.size() + " dispatched");
        }
        long arrival = queued < REQUESTS ? nextArrival : Long.MAX_VALUE;
        long finish = running.isEmpty() ? Long.MAX_VALUE : running.peek().at();
        long now = Math.min(arrival, Math.min(finish, wakeAt));
        if (now == Long.MAX_VALUE) {
          return;
        }
        if (now == finish) {
          Finish f = running.poll();
          policy.completed(f.work(), f.work().soloNanos(), now);
          completed++;
        } else if (now == arrival) {
          int vgpu = rnd.nextInt(2 * VGPUS) < VGPUS + 1 ? 0 : 1 + rnd.nextInt(VGPUS - 1);
          long solo = MS / 10 + rnd.nextInt((int) (5 * MS));
          policy.queued(new GpuWork(queued, vgpu, solo, now, rnd.nextBoolean()), now);
          queued++;
          if (queued == changeAfter) change.accept(policy, now);
          nextArrival = now + rnd.nextInt((int) (3 * MS));
        } else {
          wakeAt = Long.MAX_VALUE;
        }
        while (true) {
          GpuDecision decision = policy.next(now, running.size());
          if (decision instanceof GpuDecision.Dispatch d) {
            GpuWork w = d.work();
            dispatches.add(w.vgpu() + ":" + w.id() + "@" + now);
            timesDispatched.merge(w.id(), 1, Integer::sum);
            gpuFreeAt = Math.max(gpuFreeAt, now) + w.soloNanos();
            running.add(new Finish(gpuFreeAt, w));
            peakInflight = Math.max(peakInflight, running.size());
          } else if (decision instanceof GpuDecision.WakeAt w) {
            if (w.nanos() <= now) {
              fail(policy.name() + " asked to wake at " + w.nanos() + " which is not after now " + now);
            }
            wakeAt = w.nanos();
            break;
          } else {
            break;
          }
        }
      }
    }
  }
}
