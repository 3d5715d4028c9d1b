package org.gpuemu.policies.combo;

/**
 * What the emulator does with a frame of the game (answer to {@link SpacePolicy#frameReady}).
 *
 * @param frame        the frame's index
 * @param nominalStart when the frame would start at the game's fixed rate: the first frame's readiness + k/fps
 * @param startAt      when its render kernels may start (hold them until then): later than nominal when headroom
 *                     merging delays it (§5.5), never earlier than the frame was ready
 * @param deadline     its QoS target: the next frame's nominal start (nominal + 1/fps); a frame rendered later
 *                     violates QoS
 * @param layout       the SM layout from {@code startAt} on; kernels running then keep their SMs
 * @param binding      which version of its render kernels to launch
 * @param scheme       the scheme in force for it
 * @param merged       whether headroom merging delayed it (a frame ready late starts late without being merged)
 * @param suspendBe    whether the BE group's running kernels are suspended from {@code startAt} until the frame has
 *                     rendered, and resumed then (an exact layout change, §5.2: see {@link SpaceSharingPolicy})
 * @param hostNanos    the policy's own work on the host between the frame's readiness and its kernels' launch
 *                     (combo.txt §6.7's online overhead), already counted in {@code startAt}; 0 for none
 */
public record FramePlan(long frame, long nominalStart, long startAt, long deadline, SmLayout layout, Binding binding,
    Scheme scheme, boolean merged, boolean suspendBe, long hostNanos) {
  public FramePlan {
    if (hostNanos < 0) throw new IllegalArgumentException("host work must be >= 0, got " + hostNanos);
  }
}
