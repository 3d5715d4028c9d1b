package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.List;

/**
 * The other nodes of a cluster run as actor systems of this JVM, each on its own loopback port (tests). A node-crash
 * terminates a node's actor system without leaving the cluster: the others find it by their failure detector.
 */
final class InJvmNodes implements ClusterRun.Launcher {
  final List<ClusterNode> nodes = new ArrayList<>();

  @Override public void launch(int count, String seed, ClusterNode.Downing downing) {
    for (int i = 0; i < count; i++) {
      ClusterNode[] self = new ClusterNode[1];
      self[0] = ClusterNode.start("127.0.0.1", 0, seed, 1, downing, () -> self[0].crash());
      nodes.add(self[0]);
    }
  }

  @Override public void close() throws Exception {
    for (ClusterNode n : nodes) n.close();
  }
}
