package org.gpuemu.emulator.cpu;

import java.util.Arrays;

/**
 * The requests on one core ({@link CoreModel}), by vCPU: at most one each. A core serves a few vCPUs, so a scan of
 * two parallel arrays finds one without boxing its number or a map node per request, and each vCPU's slot keeps its
 * request object for the next one once it is answered (a vCPU asks again after every answer: two requests of each
 * synchronous GPU call).
 *
 * @param <R> where a request's answer goes
 */
final class CoreRequests<R> {
  /** A request for CPU time: a vCPU's, or host work's ({@code host}: runs before every vCPU, unknown to the policy). */
  static final class Request<R> {
    int vcpu;
    R replyTo;
    long requestedAt;
    boolean host;
    int weight;
    long remaining;
    long ran;
    /** In the table (asked and not answered); an answered one may be filled again. */
    boolean live;

    Request(int vcpu, int weight, long nanos, R replyTo, long requestedAt, boolean host) {
      set(vcpu, weight, nanos, replyTo, requestedAt, host);
    }

    private void set(int vcpu, int weight, long nanos, R replyTo, long requestedAt, boolean host) {
      this.vcpu = vcpu;
      this.weight = weight;
      this.host = host;
      this.remaining = nanos;
      this.ran = 0;
      this.replyTo = replyTo;
      this.requestedAt = requestedAt;
    }
  }

  private int[] vcpus = new int[2];
  @SuppressWarnings("unchecked")
  private Request<R>[] slots = new Request[2];
  private int size;

  /** The live request of {@code vcpu}, or null. */
  Request<R> get(int vcpu) {
    int i = slotOf(vcpu);
    if (i < 0) return null;
    Request<R> r = slots[i];
    return r.live ? r : null;
  }

  boolean contains(int vcpu) {
    return get(vcpu) != null;
  }

  /**
   * {@code vcpu}'s new request, in the table in place of any it had: its slot's object filled again when that one
   * was answered, a new one while it is still live (it may be on the core: it stays what the core runs).
   */
  Request<R> put(int vcpu, int weight, long nanos, R replyTo, long requestedAt) {
    int i = slotOf(vcpu);
    if (i < 0) {
      if (size == vcpus.length) {
        vcpus = Arrays.copyOf(vcpus, size * 2);
        slots = Arrays.copyOf(slots, size * 2);
      }
      i = size++;
      vcpus[i] = vcpu;
    }
    Request<R> r = slots[i];
    if (r == null || r.live) {
      r = new Request<>(vcpu, weight, nanos, replyTo, requestedAt, false);
      slots[i] = r;
    } else {
      r.set(vcpu, weight, nanos, replyTo, requestedAt, false);
    }
    r.live = true;
    return r;
  }

  /** {@code vcpu}'s request leaves the table (answered). */
  void remove(int vcpu) {
    int i = slotOf(vcpu);
    if (i >= 0) slots[i].live = false;
  }

  /** The vCPUs with a live request, in ascending order. */
  int[] liveVcpus() {
    int[] live = new int[size];
    int n = 0;
    for (int i = 0; i < size; i++) if (slots[i].live) live[n++] = vcpus[i];
    live = Arrays.copyOf(live, n);
    Arrays.sort(live);
    return live;
  }

  private int slotOf(int vcpu) {
    for (int i = 0; i < size; i++) if (vcpus[i] == vcpu) return i;
    return -1;
  }
}
