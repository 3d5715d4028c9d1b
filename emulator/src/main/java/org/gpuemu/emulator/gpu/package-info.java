/**
 * The GPU: the scheduler actor wrapping a time-sharing policy, the physical GPU with its SM groups (the fluid
 * execution model) and its memory (wrapping a memory policy).
 */
package org.gpuemu.emulator.gpu;
