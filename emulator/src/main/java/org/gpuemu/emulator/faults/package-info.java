/**
 * Fault injection: the FaultInjector actor fires the run's {@code FaultPlan} at its model times and keeps
 * what happened to each fault (injected, healed, recovered); the actors a kind hits carry the effect and the heal.
 */
package org.gpuemu.emulator.faults;
