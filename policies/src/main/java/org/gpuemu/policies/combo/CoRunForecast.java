package org.gpuemu.policies.combo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.MemoryClass;

/**
 * COMBO's duration predictor for co-locations (combo.txt §3, §6.1: "predict the duration of individual kernels and
 * kernel co-locations"): the kernels running on the whole GPU with their remaining solo work, advanced with the
 * {@link ColocationTable}'s rates, the same fluid model the SM groups execute. It answers when every kernel would
 * end if one more started now.
 */
final class CoRunForecast {
  /** Work below a picosecond counts as done (rounding of rates). */
  private static final double DONE = 1e-3;

  private final ColocationTable table;
  private final Map<Long, Running> running = new LinkedHashMap<>();
  private long asOf = Long.MIN_VALUE;

  private static final class Running {
    final KernelType type;
    final MemoryClass memory;
    double remaining;

    Running(KernelType type, MemoryClass memory, double remaining) {
      this.type = type;
      this.memory = memory;
      this.remaining = remaining;
    }
  }

  CoRunForecast(ColocationTable table) {
    this.table = table;
  }

  /** Progress every kernel to {@code now}; one predicted done stays, at no work, until removed. */
  void advanceTo(long now) {
    if (asOf != Long.MIN_VALUE && now > asOf) {
      simulate(running, now - asOf, null);
    }
    asOf = Math.max(asOf, now);
  }

  void add(long id, KernelType type, double work) {
    add(id, type, MemoryClass.UNCLASSIFIED, work);
  }

  void add(long id, KernelType type, MemoryClass memory, double work) {
    if (running.putIfAbsent(id, new Running(type, memory, work)) != null) {
      throw new IllegalStateException("kernel " + id + " forecast twice");
    }
  }

  void remove(long id) {
    running.remove(id);
  }

  boolean contains(long id) {
    return running.containsKey(id);
  }

  /** Ids of the kernels forecast. */
  List<Long> ids() {
    return List.copyOf(running.keySet());
  }

  /** When each kernel ends, by id, if {@code candidate} of {@code type} and {@code work} started at {@code now}. */
  Map<Long, Long> endsWith(long now, long candidate, KernelType type, double work) {
    return endsWith(now, candidate, type, MemoryClass.UNCLASSIFIED, work);
  }

  /** The same for a candidate of a memory class. */
  Map<Long, Long> endsWith(long now, long candidate, KernelType type, MemoryClass memory, double work) {
    advanceTo(now);
    Map<Long, Running> copy = new LinkedHashMap<>();
    running.forEach((id, r) -> copy.put(id, new Running(r.type, r.memory, r.remaining)));
    copy.put(candidate, new Running(type, memory, work));
    Map<Long, Long> ends = new LinkedHashMap<>();
    simulate(copy, Double.POSITIVE_INFINITY, ends);
    return ends;
  }

  /**
   * Runs {@code set} forward by {@code span} nanoseconds (or until all are done), recording each kernel's end time,
   * rounded up, in {@code ends} when given.
   */
  private void simulate(Map<Long, Running> set, double span, Map<Long, Long> ends) {
    double t = 0;
    if (ends != null) {
      set.forEach((id, r) -> {
        if (r.remaining <= DONE) ends.put(id, asOf);
      });
    }
    while (t < span) {
      List<Long> ids = new ArrayList<>();
      List<KernelType> types = new ArrayList<>();
      List<MemoryClass> memory = new ArrayList<>();
      set.forEach((id, r) -> {
        if (r.remaining > DONE) {
          ids.add(id);
          types.add(r.type);
          memory.add(r.memory);
        }
      });
      if (ids.isEmpty()) return;
      double[] rates = table.rates(types, memory);
      int first = -1;
      double step = span - t;
      for (int i = 0; i < ids.size(); i++) {
        double toEnd = set.get(ids.get(i)).remaining / rates[i];
        if (toEnd <= step) {
          step = toEnd;
          first = i;
        }
      }
      t += step;
      for (int i = 0; i < ids.size(); i++) {
        Running r = set.get(ids.get(i));
        r.remaining = i == first ? 0 : r.remaining - rates[i] * step;
        if (r.remaining <= DONE) {
          r.remaining = 0;
          if (ends != null) ends.put(ids.get(i), asOf + (long) Math.ceil(t - 1e-6));
        }
      }
    }
  }
}
