/**
 * What guests do, as plain Java with no actor runtime: kernels ({@link org.gpuemu.workloads.KernelSpec}), the
 * steps a vCPU executes ({@link org.gpuemu.workloads.Step}), programs that generate them lazily and seeded, and
 * the catalog of workloads the papers use ({@link org.gpuemu.workloads.WorkloadCatalog}). Every figure comes from
 * a paper's table or is derived from one, with the derivation next to the number.
 */
package org.gpuemu.workloads;
