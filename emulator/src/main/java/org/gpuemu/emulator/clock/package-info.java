/**
 * Time for the emulator: an {@link org.gpuemu.emulator.clock.EmulatedClock} that scales wall time (slow motion,
 * real time, fast forward) and is, with the read-only configuration and {@link
 * org.gpuemu.emulator.clock.TimerLateness}, the only thing actors share; a {@link
 * org.gpuemu.emulator.clock.HighResScheduler} that replaces Pekko's millisecond-tick scheduler so that {@code
 * Behaviors.withTimers}, still the one timer API, fires within microseconds; the lateness record every run reports
 * to judge its own fidelity; and {@link org.gpuemu.emulator.clock.TimerProbe}, which measures all of that on the
 * machine at hand.
 */
package org.gpuemu.emulator.clock;
