package org.gpuemu.policies.combo;

import java.util.List;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.RenderScene;

/**
 * A space-sharing policy for one GPU shared by one game and best-effort (BE) applications (combo.txt §3, §5):
 * frame and BE events in, decisions out. It decides, per frame, when the frame's render kernels start, how the SMs
 * are grouped and which version of the render kernels runs ({@link FramePlan}), and, after every event, which BE
 * kernel to launch where ({@link SpaceDecision}). Never reads a clock; times are emulated nanoseconds. Driven by one
 * actor, so not thread-safe.
 *
 * <p>How the emulator drives it (the GpuScheduler as adapter, the PhysicalGpu's SM groups as executors):
 * <ol>
 *   <li>{@link #attach} once, before any event, with the GPU's SMs, the game's frame rate, the Eq. 4 predictor
 *       fitted on the game ({@code ComboGame.profile()}) and the co-location table the SM groups execute with.
 *   <li>When the game's first render kernel of frame k reaches the scheduler, {@link #frameReady} with the frame's
 *       scene ({@code ComboGame.scenes(seed).scene(k)}, the same seed as the game's program). Hold the frame's
 *       render kernels until {@link FramePlan#startAt}; then apply its layout (kernels still running keep their
 *       SMs, unless the plan suspends the BE group's: {@link FramePlan#suspendBe}, resumed when the frame has
 *       rendered) and launch them in order on the render group, SM-bound or original as the plan says.
 *   <li>{@link #renderPhaseStarted} when the frame's first kernel of a type starts executing (CD, then RT).
 *   <li>{@link #frameRendered} when the frame's last render kernel has finished (its Present has been seen).
 *   <li>{@link #beQueued} for every BE kernel a BE VM submits, {@link #beFinished} when one completes.
 *   <li>After each of these calls and whenever a plan's {@code startAt} is reached, {@link #next} until it answers
 *       {@link SpaceDecision.Idle}; start each launched kernel at once, where it is placed.
 * </ol>
 * BE kernels are two FIFO streams, as COMBO's CUDA and Tensor streams (§5.1): CD kernels in one, TC kernels in
 * the other, in the order queued, each stream running one kernel at a time.
 */
public interface SpacePolicy {
  /** Stable registry name ("pilotfish", "combo", ...). */
  String name();

  /** The run's GPU and game; once, before any other event. */
  void attach(SpaceSetup setup);

  /**
   * Frame {@code frame} (any index first, then a later one: usually the previous one + 1) is ready to render at
   * {@code now}. A frame may be missing: one whose commands all failed on their way (a lost message the guest gave
   * up on) reaches no scheduler, and its time slot passes; the frames after it keep their nominal starts.
   */
  FramePlan frameReady(long frame, RenderScene scene, long now);

  /** The frame's first render kernel of {@code type} started executing. */
  void renderPhaseStarted(long frame, KernelType type, long now);

  /** The frame's last render kernel finished. */
  void frameRendered(long frame, long now);

  /** A BE VM submitted a kernel. */
  void beQueued(BeKernel kernel, long now);

  /** A launched BE kernel completed. */
  void beFinished(BeKernel kernel, long now);

  /** The next BE launch, or {@link SpaceDecision.Idle} until the next event; at most one kernel per call. */
  SpaceDecision next(long now);

  /** The scheme of the latest planned frame (before any frame, the policy's starting scheme). */
  Scheme scheme();

  /** Every scheme change so far, oldest first. */
  List<SchemeSwitch> switches();

  /** Violations of the policy's own invariants (empty when consistent). */
  List<String> checkInvariants();
}
