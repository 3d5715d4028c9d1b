package org.gpuemu.emulator.metrics;

/**
 * What a VM's Presents cost, issue to return as its guest agent sees them ({@code calls}, mean and longest, ns),
 * and the agent's predictions of them ({@code predicted} of the calls had one): the mean and extreme errors
 * (predicted − actual, ns) and the {@code failures} beyond 2 ms (vgris.txt §4.1, Figures 6 and 9; {@link PresentCosts}).
 */
public record PresentFigures(long calls, long costMeanNanos, long costMaxNanos, long predicted,
    long errorMeanAbsNanos, long errorMinNanos, long errorMaxNanos, long failures) {}
