package org.gpuemu.emulator.vm;

/** A guest call that failed: why ({@code gpu-reset}, {@code vgpu-crashed}, ...) and at which emulated time. */
public record FailedRequest(String reason, long atNanos) {}
