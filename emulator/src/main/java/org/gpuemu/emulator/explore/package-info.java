/**
 * Exploration (docs/guides/explore.md): many short runs of one scenario in fast forward, across seeds, random fault
 * schedules and legal tie orders of the conservative causal order, each judged by its properties
 * ({@link org.gpuemu.emulator.explore.Judge}); a failing run shrunk to a small scenario file that {@code run} replays
 * exactly ({@link org.gpuemu.emulator.explore.Shrinker}, {@link org.gpuemu.emulator.explore.Plan}).
 */
package org.gpuemu.emulator.explore;
