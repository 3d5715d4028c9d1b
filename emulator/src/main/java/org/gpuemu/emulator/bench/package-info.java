/**
 * The {@code bench} command: measures the emulator on the machine at hand against its performance goals (timer
 * lateness of the emulator's timer path against Pekko's schedulers, synchronous request path throughput, how many
 * VMs stay faithful in real time, how far a scenario can be fast-forwarded without changing its outcome, and the
 * emulation overhead against a workload's analytic ideal) with the same runner and scenario loader as {@code run},
 * and reports the figures in a table and {@code bench.json}; it never asserts them. On request ({@code --only
 * fidelity}) it also checks the runs' own fidelity verdicts: every shipped scenario against a slower run of itself.
 */
package org.gpuemu.emulator.bench;
