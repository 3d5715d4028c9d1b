package org.gpuemu.policies.gballoon;

/**
 * What a slot policy did so far, for the run's summary.
 *
 * @param switches           vGPU context switches it was told of
 * @param slotsCopied        high-memory slots copied at them (the low range not counted)
 * @param lowCopies          switches that copied the shared low range
 * @param copyCpuNanos       CPU time of those copies as priced by {@link CopyCost}
 * @param expansions         expansions granted
 * @param expansionsRefused  expansion requests refused (band above Threshold_high, no slot left, static policy)
 * @param reductions         reductions made
 * @param slotsReduced       slots taken by them
 * @param evictedBytes       bytes in use that reductions took
 * @param pressureEvictedBytes bytes in use that memory-pressure faults took (the host withdrew their slots)
 */
public record SlotCounters(long switches, long slotsCopied, long lowCopies, long copyCpuNanos, long expansions,
    long expansionsRefused, long reductions, long slotsReduced, long evictedBytes, long pressureEvictedBytes) {}
