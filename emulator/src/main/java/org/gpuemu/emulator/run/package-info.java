/**
 * One run: the Emulation guardian that owns the actor tree and the run's end, and the runner that starts a run,
 * collects the final reports and checks invariants. (The context the actors share, {@code clock.RunContext}, sits
 * below every actor package, so that none of them depends on the run that spawns it.)
 */
package org.gpuemu.emulator.run;
