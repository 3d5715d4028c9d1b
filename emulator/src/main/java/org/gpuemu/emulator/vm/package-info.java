/**
 * A guest VM and what it is made of: vCPUs executing the workload program, the vGPU with its request ring and
 * bounded command buffer, and the guest agent where a policy may intercept graphics calls.
 */
package org.gpuemu.emulator.vm;
