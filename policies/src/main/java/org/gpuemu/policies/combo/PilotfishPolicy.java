package org.gpuemu.policies.combo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.RenderScene;

/**
 * PilotFish as its authors published it: W. Zhang, B. Chen, Z. Han, Q. Chen, P. Cheng, F. Yang, R. Shu, Y. Yang,
 * M. Guo, "PilotFish: Harvesting Free Cycles of Cloud Gaming with Deep Learning Training", USENIX ATC 2022,
 * pp. 217-232 (combo.txt reference [37]). Registered as {@code pilotfish}; the one-paragraph reading of combo.txt
 * §1/§2.2 stays as {@code pilotfish-combo} ({@link SpaceSharingPolicy#pilotfishCombo}).
 *
 * <p>Sources, and what each gives. The paper's body (its sections) could not be read here: the stored copy of the
 * paper yields its abstract only. The abstract states the rule: training kernels are scheduled only when they can
 * finish within the game's idle GPU period, the idle periods are captured by instrumenting the graphics library, and
 * straggler kernels that run longer than expected are preempted. The authors' artifact (github.com/Chen-Binghao/
 * PilotFish, the "PF" build: {@code Pilotfish/RenderHook/pf.h} on the game side, {@code Pilotfish/KernelHook/
 * main_PF.h} on the training side) gives the numbers and the order of the steps, cited below by function.
 *
 * <p>The rule, step by step:
 * <ol>
 *   <li>Idle period (pf.h {@code queryrenderstate}): when a frame's last command list has executed, the frame's GPU
 *       render time is measured and the idle budget published is the QoS period less that render time (the
 *       artifact hard-codes 16.6 ms, 1/60 s; here 1/fps). The last frame's render time predicts the gap that follows
 *       it, so the idle period ends one QoS period after the frame started.
 *   <li>Kernels still outstanding (main_PF.h {@code flip_detection}): on a new budget, the predicted durations of the
 *       training kernels launched and not yet finished are subtracted from it, whole.
 *   <li>Kernel duration prediction (main_PF.h {@code hkcuModuleGetFunction}, {@code get_kernel_time}): each kernel's
 *       average duration from an offline profile of the training job; here {@link BeKernel#soloNanos}, its duration
 *       alone on the GPU from offline profiling.
 *   <li>Launch rule (main_PF.h {@code hkcuLaunchKernel}, {@code launch_available}): a kernel is launched when its
 *       predicted duration is at most the budget left, which it then uses up; otherwise it waits for the next
 *       budget. No guard is kept (COMBO's {@code guard} is not PilotFish's): a kernel may be planned to end exactly
 *       when the idle period does. The wait has no bound and the kernel is never split: the hook loops
 *       ({@code while (launch_available(prediction)) Sleep(2)}) until some idle period's budget is at least the
 *       kernel's prediction, and since the training job launches in order from the thread the hook blocks, its later
 *       kernels wait behind it. A training kernel longer than every idle period of the game therefore never runs
 *       (its application starves), which combo.txt §1 also says of PilotFish: "some BE kernels' duration exceeds the
 *       QoS headroom, thus leaving the free GPU cycles unutilized".
 *   <li>Stragglers (pf.h {@code queryrenderstate}, main_PF.h {@code is_gpu_busy}): if, when a frame has rendered,
 *       more than 1 ms of launched training kernels is still outstanding, the training context is reset
 *       ({@code cudaDeviceReset}) and restored later from a host-memory checkpoint taken every 240 frames
 *       ({@code CopyDtoH}, {@code CopyHtoD}). Counted here ({@link #stragglers}), not enacted: a {@link SpacePolicy}
 *       can launch kernels but not kill one, and with exact duration predictions and kernels that run alone
 *       between frames, none straggles in this model.
 * </ol>
 *
 * <p>Interpretations, where neither source settles it:
 * <ul>
 *   <li>The budget as a deadline: the artifact subtracts each launched kernel's prediction from a counter, which
 *       equals a wall-clock deadline when the training job keeps its launch queue full (kernels back to back, what
 *       the artifact assumes of DL training). Here the idle period's end is a time and a kernel fits if it ends by
 *       it, so a BE application that leaves gaps between its kernels does not push a kernel past the idle period,
 *       which the abstract's rule forbids.
 *   <li>Two BE applications (combo.txt §6.3 co-locates a game with a DNN job and a Parboil benchmark; PilotFish
 *       co-locates one training job): they share one budget and run one kernel at a time, the oldest candidate that
 *       fits first, as one in-order stream would.
 *   <li>Before the first frame has rendered no idle period is known, so nothing launches (the artifact starts from
 *       a placeholder budget of 10 ms).
 *   <li>Overheads: the paper's measured overheads could not be read, so none is charged. The artifact polls its
 *       shared-memory flags every 1-2 ms ({@code Sleep(1)}, {@code Sleep(2)}); the abstract claims sub-millisecond
 *       detection, so that polling is not modelled.
 * </ul>
 *
 * <p>Frames start at the game's fixed rate (frame k at the first frame's readiness + k/fps, or when ready if later)
 * on the whole GPU with their original kernels: PilotFish converts none and never shares SMs.
 */
public final class PilotfishPolicy implements SpacePolicy {
  /** Registry name of PilotFish as published. */
  public static final String NAME = "pilotfish";
  /** pf.h {@code queryrenderstate}: preempt when more than 1 ms of training kernels is outstanding at frame end. */
  static final long STRAGGLER_NANOS = 1_000_000L;

  private static final SpaceDecision IDLE = new SpaceDecision.Idle();

  private final BeStreams streams = new BeStreams();
  /** Launched BE kernels not finished, by id. */
  private final Map<Long, BeKernel> outstanding = new LinkedHashMap<>();
  /** Planned frames not yet rendered, by index. */
  private final TreeMap<Long, FramePlan> unrendered = new TreeMap<>();
  private SpaceSetup setup;
  private FramePlan last;
  private long firstFrame;
  private long origin;
  /** When the current idle period ends; before the first frame has rendered, none has begun. */
  private long idleEnd = Long.MIN_VALUE;
  private long stragglers;

  /** {@code pilotfish}: reads no parameter. */
  public static PilotfishPolicy create() {
    return new PilotfishPolicy();
  }

  private PilotfishPolicy() {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void attach(SpaceSetup setup) {
    if (this.setup != null) throw new IllegalStateException(NAME + ": attached twice");
    this.setup = setup;
  }

  @Override
  public FramePlan frameReady(long frame, RenderScene scene, long now) {
    attached();
    if (last == null) {
      firstFrame = frame;
      origin = now;
    } else if (frame <= last.frame()) {
      throw new IllegalArgumentException(NAME + ": frame " + frame + " ready after frame " + last.frame());
    }
    long nominal = nominal(frame);
    FramePlan plan = new FramePlan(frame, nominal, Math.max(now, nominal), nominal(frame + 1),
        new SmLayout.Whole(setup.totalSms()), Binding.ORIGINAL, Scheme.TEMPORAL, false, false, 0);
    last = plan;
    unrendered.put(frame, plan);
    return plan;
  }

  @Override
  public void renderPhaseStarted(long frame, KernelType type, long now) {
    unrenderedFrame(frame);
  }

  @Override
  public void frameRendered(long frame, long now) {
    FramePlan plan = unrenderedFrame(frame);
    unrendered.remove(frame);
    long render = now - plan.startAt();
    long stillRunning = outstanding.values().stream().mapToLong(BeKernel::soloNanos).sum();
    if (stillRunning > STRAGGLER_NANOS) stragglers++;
    // pf.h: budget = QoS period - this frame's render time; main_PF.h: less the outstanding kernels' predictions
    idleEnd = now + qosNanos() - render - stillRunning;
  }

  @Override
  public void beQueued(BeKernel kernel, long now) {
    attached();
    streams.queued(kernel);
  }

  @Override
  public void beFinished(BeKernel kernel, long now) {
    attached();
    streams.finished(kernel);
    outstanding.remove(kernel.id());
  }

  @Override
  public SpaceDecision next(long now) {
    attached();
    if (!outstanding.isEmpty()) return IDLE;
    for (BeKernel k : streams.candidates()) {
      // main_PF.h launch_available: launch when the prediction is at most the budget left
      if (now + k.soloNanos() <= idleEnd) {
        streams.launched(k, Placement.WHOLE_GPU);
        outstanding.put(k.id(), k);
        return new SpaceDecision.Launch(k, Placement.WHOLE_GPU);
      }
    }
    return IDLE;
  }

  @Override
  public Scheme scheme() {
    return Scheme.TEMPORAL;
  }

  @Override
  public List<SchemeSwitch> switches() {
    return List.of();
  }

  @Override
  public List<String> checkInvariants() {
    List<String> violations = new ArrayList<>();
    streams.check(NAME, violations);
    if (outstanding.size() > 1) violations.add(NAME + ": " + outstanding.size() + " BE kernels running at once");
    if (!streams.runningOnWholeGpu().equals(outstanding.keySet())) {
      violations.add(NAME + ": streams run " + streams.runningOnWholeGpu() + " but " + outstanding.keySet()
          + " were launched");
    }
    return violations;
  }

  /** Frames at whose end more than 1 ms of BE kernels was outstanding: those PilotFish would have preempted. */
  long stragglers() {
    return stragglers;
  }

  private long qosNanos() {
    return Math.round(1e9 / setup.fps());
  }

  private long nominal(long frame) {
    return origin + Math.round((frame - firstFrame) * 1e9 / setup.fps());
  }

  private FramePlan unrenderedFrame(long frame) {
    attached();
    FramePlan f = unrendered.get(frame);
    if (f == null) throw new IllegalArgumentException(NAME + ": frame " + frame + " is not planned or already rendered");
    return f;
  }

  private void attached() {
    if (setup == null) throw new IllegalStateException(NAME + ": not attached to a GPU yet");
  }
}
