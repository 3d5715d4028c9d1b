/**
 * The GPU: the scheduler actor wrapping a time-sharing policy, the physical GPU with its SM groups (actors around
 * {@link org.gpuemu.emulator.gpu.SmGroupModel}, the pure fluid execution model) and its memory (wrapping a memory
 * policy).
 */
package org.gpuemu.emulator.gpu;
