package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.ClusterEvent;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Subscribe;

/**
 * The coordinator's eyes on a cluster run: keeps every part's progress as its node reports it ({@link Ledger}), and
 * tells the run's thread when the cluster removed a node (the split-brain resolver downed it, or it left), with when
 * the failure detector first found it unreachable.
 */
final class RunWatcher {
  private RunWatcher() {}

  /** A node the cluster removed: at the wall instant {@code removedAtMillis}, unreachable since {@code unreachableAtMillis} (0: never seen so). */
  record Removed(String node, long unreachableAtMillis, long removedAtMillis) {}

  /**
   * What is known of each running part: its last report and how many timeline rows it reported (the rows go on to
   * the merged timeline at once). Thread-safe.
   */
  static final class Ledger {
    private final Map<String, NodeAgent.Progress> last = new ConcurrentHashMap<>();
    private final Map<String, java.util.concurrent.atomic.AtomicLong> rows = new ConcurrentHashMap<>();
    private final TimelineStream timeline;
    private final ClusterObserver observer;
    private final List<String> vms;
    private final double[] fps;
    private final double[] gpuShare;
    private final Map<String, Integer> vmIndex = new java.util.HashMap<>();
    private long furthestNanos;

    Ledger(TimelineStream timeline) {
      this(timeline, List.of(), ClusterObserver.NONE);
    }

    /** Also tells {@code observer} the run's live view over the scenario's VMs {@code vms} as each report comes. */
    Ledger(TimelineStream timeline, List<String> vms, ClusterObserver observer) {
      this.timeline = timeline;
      this.observer = observer;
      this.vms = List.copyOf(vms);
      this.fps = new double[vms.size()];
      this.gpuShare = new double[vms.size()];
      for (int i = 0; i < vms.size(); i++) vmIndex.put(vms.get(i), i);
    }

    static String key(String node, List<Integer> hosts, long restartAtNanos) {
      return node + " " + hosts + " " + restartAtNanos;
    }

    void report(NodeAgent.Progress p) {
      String k = key(p.node(), p.hosts(), p.restartAtNanos());
      // the last report keeps its counts, not its rows: they are in the timeline
      NodeAgent.Progress counts = new NodeAgent.Progress(p.node(), p.hosts(), p.restartAtNanos(), p.atNanos(),
          p.vms(), List.of(), List.of());
      last.merge(k, counts, (a, b) -> b.atNanos() >= a.atNanos() ? b : a);
      timeline.report(k, p.rows(), p.atNanos());
      rows.computeIfAbsent(k, x -> new java.util.concurrent.atomic.AtomicLong()).addAndGet(p.rows().size());
      if (observer != ClusterObserver.NONE) live(p);
    }

    /** The live view after {@code p} (the watcher's thread only): each VM's figures of its node's last report. */
    private void live(NodeAgent.Progress p) {
      for (Steering.Done d : p.controls()) observer.controlled(d.record());
      for (NodeAgent.VmCount c : p.vms()) {
        Integer i = vmIndex.get(c.vm());
        if (i == null) continue;
        fps[i] = c.fps();
        gpuShare[i] = c.gpuShare();
      }
      furthestNanos = Math.max(furthestNanos, p.atNanos());
      observer.live(new org.gpuemu.emulator.metrics.MetricsHub.LiveView(furthestNanos, vms, fps.clone(),
          gpuShare.clone()));
    }

    /** The part's last report, null if it sent none. */
    NodeAgent.Progress last(String key) {
      return last.get(key);
    }

    /** How many rows the part reported. */
    long rows(String key) {
      java.util.concurrent.atomic.AtomicLong r = rows.get(key);
      return r == null ? 0 : r.get();
    }
  }

  private record Membership(ClusterEvent.MemberEvent e) {}

  private record Reachability(ClusterEvent.ReachabilityEvent e) {}

  /** Progress reports are sent to this actor (adapted from {@link NodeAgent.Progress}). */
  static Behavior<NodeAgent.Progress> create(Ledger ledger, BlockingQueue<Object> removals) {
    return Behaviors.<Object>setup(ctx -> {
      Cluster cluster = Cluster.get(ctx.getSystem());
      cluster.subscriptions().tell(Subscribe.create(ctx.messageAdapter(ClusterEvent.MemberEvent.class, Membership::new)
          .narrow(), ClusterEvent.MemberEvent.class));
      cluster.subscriptions().tell(Subscribe.create(ctx.messageAdapter(ClusterEvent.ReachabilityEvent.class,
          Reachability::new).narrow(), ClusterEvent.ReachabilityEvent.class));
      Map<String, Long> unreachableSince = new ConcurrentHashMap<>();
      return Behaviors.receive(Object.class)
          .onMessage(NodeAgent.Progress.class, p -> {
            ledger.report(p);
            return Behaviors.same();
          })
          .onMessage(Reachability.class, r -> {
            if (r.e() instanceof ClusterEvent.UnreachableMember u) {
              unreachableSince.putIfAbsent(u.member().address().toString(), System.currentTimeMillis());
            }
            return Behaviors.same();
          })
          .onMessage(Membership.class, m -> {
            if (m.e() instanceof ClusterEvent.MemberRemoved r) {
              String node = r.member().address().toString();
              removals.add(new Removed(node, unreachableSince.getOrDefault(node, 0L), System.currentTimeMillis()));
            }
            return Behaviors.same();
          })
          .build();
    }).narrow();
  }
}
