/**
 * Time for the emulator: an {@link org.gpuemu.emulator.clock.EmulatedClock} that scales wall time (slow motion,
 * real time, fast forward) and is, with the read-only configuration and {@link
 * org.gpuemu.emulator.clock.TimerLateness}, the only thing actors share; a {@link
 * org.gpuemu.emulator.clock.HighResScheduler} that replaces Pekko's millisecond-tick scheduler so that {@code
 * Behaviors.withTimers}, still the one timer API, fires within microseconds; the lateness record every run reports
 * beside its fidelity verdict, and the {@link org.gpuemu.emulator.clock.FidelityMeter} that reads it period by period
 * for the progress line (real-time factor, current p99); what every actor of a run shares, the {@link
 * org.gpuemu.emulator.clock.RunContext} (clock, causal order, lateness and skew records); the run's causal order
 * ({@link org.gpuemu.emulator.clock.Causality}): a {@link org.gpuemu.emulator.clock.CausalMailbox} that stamps every message
 * with the event its sender was handling, a {@link org.gpuemu.emulator.clock.CausalInbox} on every actor that hands
 * events over in model-time order, and the {@link org.gpuemu.emulator.clock.Frontier}, the run's safe time, that lets
 * an inbox hand an event over only when nothing earlier is outstanding anywhere; and {@link
 * org.gpuemu.emulator.clock.TimerProbe} and {@link
 * org.gpuemu.emulator.clock.OsFloor}, which measure all of that, and what the operating system allows, on the
 * machine at hand (the {@code bench} command's timer section).
 */
package org.gpuemu.emulator.clock;
