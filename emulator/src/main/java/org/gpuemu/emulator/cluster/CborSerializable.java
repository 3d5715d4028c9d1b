package org.gpuemu.emulator.cluster;

/**
 * Marks the messages that cross nodes: bound to Pekko's {@code jackson-cbor} serializer in the node's configuration
 * ({@link ClusterNode#config}); Java serialisation is off.
 */
public interface CborSerializable {}
