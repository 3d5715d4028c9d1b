/**
 * One run: the Emulation guardian that owns the actor tree and the run's end, the context the actors share
 * (clock, timer lateness) and the runner that starts a run, collects the final reports and checks invariants.
 */
package org.gpuemu.emulator.run;
