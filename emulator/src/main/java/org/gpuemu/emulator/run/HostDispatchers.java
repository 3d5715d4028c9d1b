package org.gpuemu.emulator.run;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.gpuemu.emulator.clock.TimerProbe;

/**
 * Where the actors of a run whose hosts run apart ({@code fidelity.host-threads} > 0) are dispatched: every host's on
 * one of {@code hostThreads} dispatchers of one thread each (host i on {@code i mod hostThreads}, by Pekko's
 * deployment of the host's subtree, {@code pekko.actor.deployment."/<host>/**"}), the rest (the run's guardian, the
 * metrics hub, the fault injector) on the default dispatcher's one thread (each a {@link DispatcherThread}). A host's
 * events are then handled one after the other on its own thread whatever the others do: its messages never hand over
 * to another thread, and its frontier's lock is taken by that thread, and by the guardian's only when the guardian
 * sends to the host. In one pool shared by every host, a host's actors ran on all its threads: its frontier's lock
 * was contended and every hand-off woke another thread, so two threads ran slower than one (docs/performance.md,
 * hosts in parallel).
 */
final class HostDispatchers {
  /** The dispatchers of host threads: {@code gpuemu-host-dispatcher-<i>}, i from 0. */
  static final String ID = "gpuemu-host-dispatcher-";
  /** Every dispatcher here has one thread: {@link DispatcherThread}, not a pool. */
  private static final String EXECUTOR = DispatcherThread.class.getName();

  private HostDispatchers() {}

  /**
   * The dispatchers of a run under the conservative order: the default one of one thread and, with {@code
   * hostThreads} > 0, the hosts' and their deployment ({@code hostActors}: the hosts' actor names under the guardian).
   */
  static Config config(int hostThreads, List<String> hostActors) {
    Config one = ConfigFactory.parseString("pekko.actor.default-dispatcher.executor = \"" + EXECUTOR + "\"")
        .withFallback(TimerProbe.RECOMMENDED_DISPATCHER);
    if (hostThreads <= 0) return one;
    StringBuilder hosts = new StringBuilder();
    for (int t = 0; t < hostThreads; t++) {
      hosts.append(ID).append(t).append(" { type = Dispatcher, executor = \"").append(EXECUTOR).append("\" }\n");
    }
    for (int h = 0; h < hostActors.size(); h++) {
      String id = ID + (h % hostThreads);
      hosts.append("pekko.actor.deployment { \"/").append(hostActors.get(h)).append("\".dispatcher = ").append(id)
          .append(", \"/").append(hostActors.get(h)).append("/**\".dispatcher = ").append(id).append(" }\n");
    }
    return ConfigFactory.parseString(hosts.toString()).withFallback(one);
  }
}
