package org.gpuemu.policies.combo;

/**
 * One change of the scheme in force.
 *
 * @param frame the first frame under the new scheme
 * @param nanos emulated time the frame was planned
 * @param from  the scheme before
 * @param to    the scheme from this frame on
 */
public record SchemeSwitch(long frame, long nanos, Scheme from, Scheme to) {}
