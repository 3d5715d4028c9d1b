/**
 * The host's physical cores: each a {@link org.gpuemu.emulator.cpu.CpuScheduler} wrapping a CPU policy, shared by the
 * vCPUs placed on it and by the host's own work (gVirt's GTT copies); it reports to a GPU scheduler through an event
 * type of its own, so that it sits below the GPU and the VMs.
 */
package org.gpuemu.emulator.cpu;
