package org.gpuemu.emulator.gpu;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;

/**
 * The kernels running on an SM group, in the order they started, and how they progress: each at its co-location
 * rate ({@link FluidModel}) times the SMs it spans, its group time divided among the active co-runners. The
 * {@link SmGroupModel} decides which kernels start, when, and over how many SMs; this class moves their work.
 *
 * @param <T> what the caller needs back with a completion
 */
final class Corunners<T> {

  /** A started kernel and the work it has left. */
  static final class Running<T> {
    SmGroupModel.Kernel<T> kernel;
    KernelType type;
    MemoryClass memory;
    long started;
    /** SMs it is bound to (SM-bound version), 0 when unbound. */
    int bound;
    /** SMs it spreads over; an unbound kernel's grows with its group, never shrinks. */
    int span;
    /** SM-nanoseconds of work left. */
    double remaining;
    double accounted;
    /** A hung kernel's watchdog deadline ({@link SmGroupModel#hang}); Long.MAX_VALUE: not hung. */
    long watchdog;

    private Running<T> set(SmGroupModel.Kernel<T> kernel, double work, long started, int bound, int span) {
      this.kernel = kernel;
      this.type = kernel.spec().type();
      this.memory = kernel.spec().memory();
      this.remaining = work;
      this.accounted = 0;
      this.started = started;
      this.bound = bound;
      this.span = span;
      this.watchdog = Long.MAX_VALUE;
      return this;
    }

    /** From now on it never finishes; the watchdog resets the engine at {@code watchdogAt}. */
    void hangs(long watchdogAt) {
      remaining = Double.POSITIVE_INFINITY;
      watchdog = watchdogAt;
    }
  }

  private final FluidModel fluid;
  /** The running kernels, suspended ones included, in the order they started. */
  final List<Running<T>> list = new ArrayList<>();
  /** Completed kernels' records, filled again by the next kernels to start (a group runs kernel after kernel). */
  private final ArrayDeque<Running<T>> spares = new ArrayDeque<>();

  Corunners(FluidModel fluid) {
    this.fluid = fluid;
  }

  /**
   * A kernel starting at {@code started} with {@code work} SM-nanoseconds to do, bound to {@code bound} SMs (0:
   * unbound) and spanning {@code span}; not in {@link #list} yet.
   */
  Running<T> start(SmGroupModel.Kernel<T> kernel, double work, long started, int bound, int span) {
    Running<T> k = spares.isEmpty() ? new Running<>() : spares.pop();
    return k.set(kernel, work, started, bound, span);
  }

  /** {@code k} completed and left {@link #list}: its record may be filled again. */
  void spare(Running<T> k) {
    k.kernel = null;
    spares.push(k);
  }

  /** Whether a kernel progresses on a group owning {@code sms}: it spans SMs, and an SM-bound one has all its SMs. */
  static boolean active(Running<?> k, int sms) {
    return k.span > 0 && (k.bound == 0 || sms >= k.bound);
  }

  /**
   * Moves the active kernels on by {@code dt} of group time on a group owning {@code sms}; returns the most SMs an
   * active kernel spans (0: none was active, the group was idle).
   */
  int progress(long dt, int sms) {
    int activeCount = 0;
    int spanned = 0;
    for (int i = 0; i < list.size(); i++) {
      Running<T> k = list.get(i);
      if (active(k, sms)) {
        activeCount++;
        spanned = Math.max(spanned, k.span);
      }
    }
    if (activeCount == 0) return 0;
    double rate = rate();
    for (int i = 0; i < list.size(); i++) {
      Running<T> k = list.get(i);
      if (!active(k, sms)) continue;
      k.remaining -= dt * rate * k.span;
      k.accounted += (double) dt / activeCount;
    }
    return spanned;
  }

  /**
   * When, after the latest event at {@code last}, the next kernel completes or a hung one's watchdog fires on a group
   * owning {@code sms}; Long.MAX_VALUE: neither (none runs, or every kernel waits for SMs).
   */
  long nextEventAt(long last, int sms) {
    if (list.isEmpty()) return Long.MAX_VALUE;
    double rate = rate();
    double soonest = Double.MAX_VALUE;
    long watchdog = Long.MAX_VALUE;
    for (int i = 0; i < list.size(); i++) {
      Running<T> k = list.get(i);
      watchdog = Math.min(watchdog, k.watchdog);
      if (active(k, sms) && k.watchdog == Long.MAX_VALUE) {
        soonest = Math.min(soonest, k.remaining / (rate * k.span));
      }
    }
    long completion = soonest == Double.MAX_VALUE ? Long.MAX_VALUE : last + (long) Math.ceil(soonest);
    return Math.min(completion, watchdog);
  }

  /** The rate every running kernel progresses at ({@link FluidModel#rate}); the list is not empty. */
  private double rate() {
    Running<T> first = list.get(0);
    Running<T> second = list.size() < 2 ? first : list.get(1);
    return fluid.rate(list.size(), first.type, first.memory, second.type, second.memory);
  }
}
