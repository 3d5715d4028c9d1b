package org.gpuemu.emulator.dashboard;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.NotUsed;
import org.apache.pekko.http.javadsl.model.sse.ServerSentEvent;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The dashboard's events and who receives them. Timeline rows and the end are kept, so that a browser that connects
 * late (or reloads) first gets the run so far, then the events that follow, with none lost or repeated: the replay
 * and the registration happen under the same lock as publishing. The latest live view is replayed too; older ones
 * are not (they are superseded). A client too slow to take its events loses the newest, never blocks the run.
 */
final class LiveFeed {
  static final String TIMELINE = "timeline";
  static final String LIVE = "live";
  static final String END = "end";
  static final String CONTROL = "control";
  static final String RUN = "run";
  static final String RUN_END = "run-end";

  /** Events a client may fall behind by, beyond the replayed history, before it loses some. */
  private static final int SLACK = 4096;

  private final Materializer materializer;
  private final List<ServerSentEvent> history = new ArrayList<>();
  private final List<BoundedSourceQueue<ServerSentEvent>> clients = new ArrayList<>();
  private ServerSentEvent lastLive;
  private ServerSentEvent end;

  LiveFeed(Materializer materializer) {
    this.materializer = materializer;
  }

  /** A timeline row as written to timeline.jsonl. */
  synchronized void timeline(String json) {
    if (end != null) return;
    ServerSentEvent e = ServerSentEvent.create(json, TIMELINE);
    history.add(e);
    publish(e);
  }

  /** A compare's next run begins ({@code type} {@link #RUN}) or one has ended ({@link #RUN_END}): kept. */
  synchronized void run(String type, String json) {
    if (end != null) return;
    ServerSentEvent e = ServerSentEvent.create(json, type);
    history.add(e);
    lastLive = null; // the previous run's live view is not this one's
    publish(e);
  }

  /** A control given to the run, or what became of it: kept, as the timeline rows are. */
  synchronized void control(String json) {
    if (end != null) return;
    ServerSentEvent e = ServerSentEvent.create(json, CONTROL);
    history.add(e);
    publish(e);
  }

  /** The run's live view (emulated time, real-time factor, verdict so far). */
  synchronized void live(String json) {
    if (end != null) return;
    lastLive = ServerSentEvent.create(json, LIVE);
    publish(lastLive);
  }

  /**
   * The run's end with its final figures. The streams stay open: a browser closes its own on this event, which is
   * how the server knows the event arrived before it stops ({@link #awaitClientsGone}); ending them from here would
   * race the last bytes against the server's shutdown.
   */
  synchronized void end(String json) {
    if (end != null) return;
    end = ServerSentEvent.create(json, END);
    publish(end);
  }

  /** Ends every client's stream (after its queued events): the server is about to stop. */
  synchronized void completeAll() {
    clients.forEach(BoundedSourceQueue::complete);
  }

  /** Waits until every client has closed its stream, at most {@code millis}; true when all have. */
  synchronized boolean awaitClientsGone(long millis) throws InterruptedException {
    long deadline = System.currentTimeMillis() + millis;
    while (!clients.isEmpty()) {
      long left = deadline - System.currentTimeMillis();
      if (left <= 0) return false;
      wait(left);
    }
    return true;
  }

  /** A new client's stream: the run so far, then every event until the client closes it or the server stops. */
  Source<ServerSentEvent, NotUsed> subscribe() {
    BoundedSourceQueue<ServerSentEvent> queue;
    Source<ServerSentEvent, NotUsed> source;
    synchronized (this) {
      Pair<BoundedSourceQueue<ServerSentEvent>, Source<ServerSentEvent, NotUsed>> p =
          Source.<ServerSentEvent>queue(history.size() + SLACK + 2).preMaterialize(materializer);
      queue = p.first();
      source = p.second();
      history.forEach(queue::offer);
      if (lastLive != null) queue.offer(lastLive);
      if (end != null) queue.offer(end);
      clients.add(queue);
    }
    BoundedSourceQueue<ServerSentEvent> registered = queue;
    return source.watchTermination((mat, done) -> {
      done.whenComplete((ok, failure) -> remove(registered));
      return mat;
    });
  }

  private synchronized void remove(BoundedSourceQueue<ServerSentEvent> queue) {
    clients.remove(queue);
    notifyAll();
  }

  private void publish(ServerSentEvent e) {
    for (BoundedSourceQueue<ServerSentEvent> q : clients) q.offer(e);
  }
}
