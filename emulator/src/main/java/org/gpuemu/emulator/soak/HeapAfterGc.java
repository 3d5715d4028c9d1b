package org.gpuemu.emulator.soak;

import java.lang.management.ManagementFactory;

/**
 * The heap used right after the JVM's most recent collection (every heap pool's usage after it, summed), read from the
 * collectors' own records ({@code com.sun.management.GarbageCollectorMXBean#getLastGcInfo}) and {@code gcs}, the
 * collections so far. Not a requested GC: {@code MemoryMXBean.gc()} is a full stop-the-world collection, 16 to 40 ms
 * here with a 16 MiB heap, a pause at every check that the run's timers would see as lateness and that would make the
 * soak perturb what it measures. After a young collection the old generation is what survived, so a leak raises
 * this floor too; between two collections the value does not change. 0 bytes when no collection has run yet.
 */
record HeapAfterGc(long bytes, long gcs) {

  static HeapAfterGc read() {
    java.util.Set<String> heapPools = new java.util.HashSet<>();
    for (java.lang.management.MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) heapPools.add(pool.getName());
    }
    long latestEnd = -1;
    long bytes = 0;
    long gcs = 0;
    for (java.lang.management.GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs += Math.max(0, gc.getCollectionCount());
      if (!(gc instanceof com.sun.management.GarbageCollectorMXBean sun)) continue;
      com.sun.management.GcInfo info = sun.getLastGcInfo();
      if (info == null || info.getEndTime() <= latestEnd) continue;
      latestEnd = info.getEndTime();
      bytes = info.getMemoryUsageAfterGc().entrySet().stream().filter(e -> heapPools.contains(e.getKey()))
          .mapToLong(e -> e.getValue().getUsed()).sum();
    }
    return new HeapAfterGc(bytes, gcs);
  }
}
