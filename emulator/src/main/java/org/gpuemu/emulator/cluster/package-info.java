/**
 * Cluster mode: a run spread over several JVMs on Pekko Cluster. Each node runs its hosts' VMs in a model
 * actor system of its own, with its own clock and causal order (a VM's vCPU, vGPU and schedulers all on one node),
 * and takes part in the cluster through a second actor system: VMs are Cluster Sharding entities (shard = host,
 * placed on nodes by {@link org.gpuemu.emulator.cluster.HostAllocation}), the run's parts are handed out and
 * collected through each node's {@link org.gpuemu.emulator.cluster.NodeAgent}, and every message that crosses nodes
 * is serialised as Jackson CBOR ({@link org.gpuemu.emulator.cluster.CborSerializable}). No message of the model ever
 * crosses a node, so none stamped in one node's causal order is counted in another's.
 */
package org.gpuemu.emulator.cluster;
