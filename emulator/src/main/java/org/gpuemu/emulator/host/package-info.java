/**
 * The host: the Host actor that spawns the physical cores, the GPU scheduler, the physical GPU and the VMs of a run.
 */
package org.gpuemu.emulator.host;
