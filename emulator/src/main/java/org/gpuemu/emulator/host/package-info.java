/** The host: its physical cores, each a CpuScheduler wrapping a CPU policy, and the Host actor that wires a run. */
package org.gpuemu.emulator.host;
