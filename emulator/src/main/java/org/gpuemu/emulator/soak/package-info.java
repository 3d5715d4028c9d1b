/**
 * Soak runs: one scenario run for a long emulated time in one JVM, sampled every check period (heap after
 * a GC, threads, requests so far, the fidelity verdict so far) through the runner's own live loop, and judged at the
 * end by pure rules ({@link org.gpuemu.emulator.soak.SoakRules}): nothing leaked, stalled or got lost.
 */
package org.gpuemu.emulator.soak;
