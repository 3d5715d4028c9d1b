package org.gpuemu.emulator.cluster;

import java.util.ArrayList;
import java.util.List;

/** The other nodes of a cluster run as actor systems of this JVM, each on its own loopback port (tests). */
final class InJvmNodes implements ClusterRun.Launcher {
  final List<ClusterNode> nodes = new ArrayList<>();

  @Override public void launch(int count, String seed) {
    for (int i = 0; i < count; i++) nodes.add(ClusterNode.start("127.0.0.1", 0, seed, 1));
  }

  @Override public void close() throws Exception {
    for (ClusterNode n : nodes) n.close();
  }
}
