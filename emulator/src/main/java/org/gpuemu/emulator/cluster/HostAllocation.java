package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.ActorRef;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.sharding.ShardCoordinator;
import scala.collection.immutable.IndexedSeq;
import scala.concurrent.Future;

/**
 * Where Cluster Sharding puts a host's shard (the shard of every VM on that host): host {@code i} (the shard id is
 * the host's index) on node {@code i mod n}, node 0 being the coordinator's (this allocation runs there: the shard
 * coordinator lives on the oldest node) and the others in address order, once all {@code n} nodes of the run have their
 * shard region; before that an allocation is refused and the coordinator tries again. After a node's loss its hosts'
 * shards are allocated again when the run provisions them anew: each on the surviving region with the fewest shards
 * (then the first in address order). Never rebalances: a shard moved is a host whose VMs restart, which only a
 * node's loss may cause.
 */
public final class HostAllocation extends ShardCoordinator.AbstractShardAllocationStrategy {
  private final int nodes;
  private final Address self;
  private volatile boolean allSeen;

  /** For a run of {@code nodes} nodes; {@code self} stands for the coordinator's own region's local address. */
  public HostAllocation(int nodes, Address self) {
    this.nodes = nodes;
    this.self = self;
  }

  @Override
  public Future<ActorRef> allocateShard(ActorRef requester, String shardId,
      Map<ActorRef, IndexedSeq<String>> current) {
    if (current.size() >= nodes) allSeen = true;
    List<ActorRef> regions = new ArrayList<>(current.keySet());
    regions.sort(Comparator.comparing(r -> r.path().address().host().isDefined() ? address(r).toString() : ""));
    if (allSeen && current.size() < nodes) { // a node was lost: the survivor with the fewest hosts
      ActorRef least = regions.stream().min(Comparator.comparingInt(r -> current.get(r).size())).orElseThrow();
      return org.apache.pekko.dispatch.Futures.successful(least);
    }
    if (current.size() < nodes) {
      return org.apache.pekko.dispatch.Futures.failed(new IllegalStateException("host " + shardId + ": waiting for " + nodes
          + " shard regions, " + current.size() + " so far"));
    }
    int host = Integer.parseInt(shardId);
    return org.apache.pekko.dispatch.Futures.successful(regions.get(host % regions.size()));
  }

  @Override
  public Future<Set<String>> rebalance(Map<ActorRef, IndexedSeq<String>> current, Set<String> inProgress) {
    return org.apache.pekko.dispatch.Futures.successful(Set.of());
  }

  private Address address(ActorRef region) {
    Address a = region.path().address();
    return a.host().isDefined() ? a : self;
  }
}
