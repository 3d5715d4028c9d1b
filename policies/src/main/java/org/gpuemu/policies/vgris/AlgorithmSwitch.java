package org.gpuemu.policies.vgris;

/**
 * One change of the algorithm in force.
 *
 * @param nanos emulated time of the per-second report that caused it
 * @param from  the algorithm before
 * @param to    the algorithm after
 */
public record AlgorithmSwitch(long nanos, Algorithm from, Algorithm to) {}
