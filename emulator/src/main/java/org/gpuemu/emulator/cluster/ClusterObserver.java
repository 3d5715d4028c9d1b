package org.gpuemu.emulator.cluster;

import org.gpuemu.emulator.metrics.MetricsHub;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;

/**
 * What watches a cluster run live from the coordinator (the live dashboard): the merged timeline's rows as they are
 * written, a live view of every VM of every node as the nodes report, what became of each control, and the session
 * through which controls reach the node that runs their VM. Called on the coordinator's threads: must not block.
 */
public interface ClusterObserver {
  ClusterObserver NONE = new ClusterObserver() {
    @Override public void row(String json) { }

    @Override public void live(MetricsHub.LiveView view) { }

    @Override public void controlled(Control.Record record) { }

    @Override public void attach(Runner.Session session) { }
  };

  /** A row of the merged timeline.jsonl, in the file's order, as it is written. */
  void row(String json);

  /** The run as the nodes' last reports show it: the furthest model time, each VM's FPS and GPU share. */
  void live(MetricsHub.LiveView view);

  /** A control took effect (or did not) on its VM's node, at the run's model time. */
  void controlled(Control.Record record);

  /** Every part runs: controls reach the run through {@code session} from now on. */
  void attach(Runner.Session session);
}
