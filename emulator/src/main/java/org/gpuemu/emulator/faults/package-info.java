/** Fault injection: the FaultInjector actor every run wires in; fault kinds arrive with later issues. */
package org.gpuemu.emulator.faults;
