package org.gpuemu.emulator.cluster;

import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.cluster.sharding.typed.ShardingEnvelope;
import org.apache.pekko.cluster.sharding.typed.ShardingMessageExtractor;
import org.apache.pekko.cluster.sharding.typed.javadsl.EntityTypeKey;

/**
 * A VM of a cluster run as a Cluster Sharding entity: its handle in the cluster, found by its id wherever it lives.
 * The id is {@code <host index>/<vm name>} and the shard is the host, so that every VM of a host lives on the node
 * that runs the host ({@link HostAllocation}). Provisioned, it records itself with its node ({@link NodeAgent.Local})
 * and answers with the node's address; the VM's model actors (vCPUs, vGPU) run in that node's model system beside
 * its host's schedulers, never across the network. An entity {@code <host>/} with no VM name allocates a host that
 * has no VM, so that every host of the scenario is run somewhere.
 */
public final class VmEntity {
  private VmEntity() {}

  public static final EntityTypeKey<Command> KEY = EntityTypeKey.create(Command.class, "vm");

  public sealed interface Command extends CborSerializable {}

  /** Puts VM {@code vm} of host {@code host} (scenario indexes) on this node; {@code replyTo} hears where. */
  public record Provision(int host, int vm, ActorRef<Provisioned> replyTo) implements Command {}

  /** VM {@code vm} (-1: only its host) of host {@code host} lives on the node at {@code node}. */
  public record Provisioned(int host, int vm, String node) implements CborSerializable {}

  /** A round trip through the entity (the cluster probe's cross-node latency against local). */
  public record Ping(long sentNanos, ActorRef<Pong> replyTo) implements Command {}

  /** The answer to a {@link Ping}, with its send time. */
  public record Pong(long sentNanos) implements CborSerializable {}

  /** The entity id of VM {@code vmName} on host {@code host} ("" for the host alone). */
  public static String id(int host, String vmName) {
    return host + "/" + vmName;
  }

  public static Behavior<Command> create(NodeAgent.Local node) {
    return Behaviors.receive(Command.class)
        .onMessage(Provision.class, p -> {
          node.provisioned(p.host(), p.vm());
          p.replyTo().tell(new Provisioned(p.host(), p.vm(), node.address()));
          return Behaviors.same();
        })
        .onMessage(Ping.class, p -> {
          p.replyTo().tell(new Pong(p.sentNanos()));
          return Behaviors.same();
        })
        .build();
  }

  /** Entity id {@code <host>/<vm>} to shard {@code <host>}. */
  public static final class Extractor extends ShardingMessageExtractor<ShardingEnvelope<Command>, Command> {
    @Override public String entityId(ShardingEnvelope<Command> envelope) {
      return envelope.entityId();
    }

    @Override public String shardId(String entityId) {
      return entityId.substring(0, entityId.indexOf('/'));
    }

    @Override public Command unwrapMessage(ShardingEnvelope<Command> envelope) {
      return envelope.message();
    }
  }
}
