package org.gpuemu.emulator.gpu;

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
    final SmGroupModel.Kernel<T> kernel;
    final KernelType type;
    final MemoryClass memory;
    final long started;
    /** SMs it is bound to (SM-bound version), 0 when unbound. */
    final int bound;
    /** SMs it spreads over; an unbound kernel's grows with its group, never shrinks. */
    int span;
    /** SM-nanoseconds of work left. */
    double remaining;
    double accounted;
    /** A hung kernel's watchdog deadline ({@link SmGroupModel#hang}); Long.MAX_VALUE: not hung. */
    long watchdog = Long.MAX_VALUE;

    Running(SmGroupModel.Kernel<T> kernel, double work, long started, int bound, int span) {
      this.kernel = kernel;
      this.type = kernel.spec().type();
      this.memory = kernel.spec().memory();
      this.remaining = work;
      this.started = started;
      this.bound = bound;
      this.span = span;
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

  Corunners(FluidModel fluid) {
    this.fluid = fluid;
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
