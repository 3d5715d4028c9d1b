package org.gpuemu.policies.combo;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuemu.workloads.ComboGame;
import org.gpuemu.workloads.KernelSpec;
import org.gpuemu.workloads.KernelType;
import org.gpuemu.workloads.Step;
import org.gpuemu.workloads.StepLoop;
import org.gpuemu.workloads.WorkloadCatalog;

/**
 * A deterministic stand-in for the emulator's actors, to run a {@link SpacePolicy} for many frames: the game's
 * frames become ready at its fixed rate (the first at time zero, before any BE kernel) and render as two phases, all
 * CD work then the RT kernel, once the plan lets them start; BE jobs keep {@link #DEPTH} kernels submitted each.
 * Kernels execute with the fluid model of the setup's {@link ColocationTable} in three pools: the whole GPU (the
 * render under a whole layout, and BE kernels placed there), the render group of a split (render work scaled by
 * total/render SMs) and the BE group (BE work scaled by total/BE SMs at launch). Simplification: a kernel keeps the
 * pool it started in, and pools never share SMs, so a switch frame's overlap (Figure 11b) is not modelled; the
 * emulator's SM groups do that. A frame whose plan suspends the BE group ({@link FramePlan#suspendBe}) freezes the
 * BE group's kernels from its start until it has rendered.
 */
final class SpaceBench {
  /** Kernels each BE job keeps submitted (the emulator's default driver queue). */
  static final int DEPTH = 2;

  /** What a run gave. */
  record Result(long frames, long misses, BeThroughput throughput, Map<String, Long> completedByName,
      long mergedFrames) {
    double completedPerFrame(String kernelName) {
      return completedByName.getOrDefault(kernelName, 0L) / (double) frames;
    }
  }

  private static final class Item {
    final BeKernel kernel; // null for the render
    final String name;
    KernelType type;
    double remaining;

    Item(BeKernel kernel, String name, KernelType type, double remaining) {
      this.kernel = kernel;
      this.name = name;
      this.type = type;
      this.remaining = remaining;
    }
  }

  private final class Pool {
    final List<Item> items = new ArrayList<>();

    /** Nanoseconds until the first item ends at the current rates. */
    long untilFirstEnd() {
      double[] rates = table.rates(types());
      double min = Double.POSITIVE_INFINITY;
      for (int i = 0; i < items.size(); i++) min = Math.min(min, items.get(i).remaining / rates[i]);
      return min == Double.POSITIVE_INFINITY ? Long.MAX_VALUE : (long) Math.ceil(min - 1e-6);
    }

    void advance(long dt) {
      double[] rates = table.rates(types());
      for (int i = 0; i < items.size(); i++) items.get(i).remaining -= rates[i] * dt;
    }

    List<KernelType> types() {
      List<KernelType> t = new ArrayList<>();
      for (Item i : items) t.add(i.type);
      return t;
    }
  }

  private static final class Job {
    final List<KernelSpec> kernels;
    final int vgpu;
    int next;
    int outstanding;

    Job(List<KernelSpec> kernels, int vgpu) {
      this.kernels = kernels;
      this.vgpu = vgpu;
    }
  }

  private final SpacePolicy policy;
  private final SpaceSetup setup;
  private final ColocationTable table;
  private final ComboGame game;
  private final ComboGame.SceneTrace scenes;
  private final List<Job> jobs = new ArrayList<>();
  private final Pool whole = new Pool();
  private final Pool renderGroup = new Pool();
  private final Pool beGroup = new Pool();
  private final ArrayDeque<FramePlan> waiting = new ArrayDeque<>();
  private final BeThroughput throughput = new BeThroughput();
  private final Map<String, Long> completed = new LinkedHashMap<>();
  private FramePlan rendering;
  private boolean beSuspended;
  private FramePlan lastPlan;
  private final Map<Long, String> names = new LinkedHashMap<>();
  private Item render;
  private Pool renderPool;
  private long renderRt;
  private double renderScale;
  private long now;
  private long nextFrame;
  private long frames;
  private long misses;
  private long merged;
  private long kernelIds;

  private SpaceBench(SpacePolicy policy, ComboGame game, List<String> beJobs, ColocationTable table, long seed) {
    this.policy = policy;
    this.game = game;
    this.table = table;
    this.setup = new SpaceSetup(82, this.game.fps(), RenderTimePredictor.fit(this.game.profile()), table);
    this.scenes = this.game.scenes(seed);
    for (int i = 0; i < beJobs.size(); i++) jobs.add(new Job(kernelsOf(beJobs.get(i)), i + 1));
  }

  /** Runs {@code policy} on the named game and BE jobs for {@code frames} frames with COMBO's table. */
  static Result run(SpacePolicy policy, String game, List<String> beJobs, long frames, long seed) {
    return run(policy, game, beJobs, frames, seed, ColocationTable.combo());
  }

  static Result run(SpacePolicy policy, String game, List<String> beJobs, long frames, long seed,
      ColocationTable table) {
    return run(policy, (ComboGame) WorkloadCatalog.get(game), beJobs, frames, seed, table);
  }

  static Result run(SpacePolicy policy, ComboGame game, List<String> beJobs, long frames, long seed,
      ColocationTable table) {
    SpaceBench bench = new SpaceBench(policy, game, beJobs, table, seed);
    bench.drive(frames);
    return new Result(bench.frames, bench.misses, bench.throughput, bench.completed, bench.merged);
  }

  /** The kernels of one iteration of a BE workload, in order. */
  static List<KernelSpec> kernelsOf(String workload) {
    List<KernelSpec> kernels = new ArrayList<>();
    for (Step s : ((StepLoop) WorkloadCatalog.get(workload)).iteration()) {
      if (s instanceof Step.LaunchKernel l) kernels.add(l.kernel());
      if (s instanceof Step.SyncCall c) kernels.add(c.kernel());
    }
    return kernels;
  }

  private long readyAt(long frame) {
    return Math.round(frame * 1e9 / game.fps());
  }

  private void drive(long frameCount) {
    policy.attach(setup);
    arrive();
    for (Job j : jobs) topUp(j);
    decide();
    long horizon = readyAt(frameCount);
    while (true) {
      long t = Math.min(readyAt(nextFrame), startTime());
      for (Pool p : running()) {
        long until = p.untilFirstEnd();
        if (until != Long.MAX_VALUE) t = Math.min(t, now + until);
      }
      if (t >= horizon) return;
      for (Pool p : running()) p.advance(t - now);
      now = t;
      finishDone();
      if (readyAt(nextFrame) == now) arrive();
      if (startTime() == now) startFrame();
      decide();
    }
  }

  /** The pools whose kernels progress: the BE group's not while a frame suspends it. */
  private List<Pool> running() {
    return beSuspended ? List.of(whole, renderGroup) : List.of(whole, renderGroup, beGroup);
  }

  /** The next frame is ready: the game starts at time zero, before any BE kernel is queued. */
  private void arrive() {
    FramePlan plan = policy.frameReady(nextFrame, scenes.scene(nextFrame), now);
    if (plan.merged()) merged++;
    waiting.add(plan);
    lastPlan = plan;
    nextFrame++;
    if (startTime() == now) startFrame();
  }

  private long startTime() {
    return rendering == null && !waiting.isEmpty() ? Math.max(now, waiting.peek().startAt()) : Long.MAX_VALUE;
  }

  private void startFrame() {
    rendering = waiting.poll();
    beSuspended = rendering.suspendBe();
    long cd = game.cdNanos(scenes.scene(rendering.frame()));
    renderRt = game.rtNanos(scenes.scene(rendering.frame()));
    renderScale = 1;
    renderPool = whole;
    if (rendering.layout() instanceof SmLayout.Split s) {
      renderScale = setup.totalSms() / (double) s.renderSms();
      renderPool = renderGroup;
    }
    render = new Item(null, "render", KernelType.CD, cd * renderScale);
    renderPool.items.add(render);
    policy.renderPhaseStarted(rendering.frame(), KernelType.CD, now);
  }

  private void finishDone() {
    for (Pool p : running()) {
      for (Iterator<Item> it = p.items.iterator(); it.hasNext(); ) {
        Item i = it.next();
        if (i.remaining > 1e-6) continue;
        if (i == render) {
          if (i.type == KernelType.CD) {
            i.type = KernelType.RT;
            i.remaining = renderRt * renderScale;
            policy.renderPhaseStarted(rendering.frame(), KernelType.RT, now);
            continue;
          }
          it.remove();
          frames++;
          if (now > rendering.deadline()) misses++;
          policy.frameRendered(rendering.frame(), now);
          rendering = null;
          beSuspended = false;
          render = null;
        } else {
          it.remove();
          policy.beFinished(i.kernel, now);
          throughput.completed(i.kernel.type(), i.kernel.soloNanos());
          completed.merge(i.name, 1L, Long::sum);
          Job job = jobs.get(i.kernel.vgpu() - 1);
          job.outstanding--;
          topUp(job);
        }
      }
    }
  }

  private void topUp(Job job) {
    while (job.outstanding < DEPTH) {
      KernelSpec k = job.kernels.get(job.next);
      job.next = (job.next + 1) % job.kernels.size();
      job.outstanding++;
      BeKernel kernel = new BeKernel(kernelIds++, job.vgpu, k.type(), k.soloNanos());
      names.put(kernel.id(), k.name());
      policy.beQueued(kernel, now);
    }
  }

  private void decide() {
    while (policy.next(now) instanceof SpaceDecision.Launch launch) {
      BeKernel k = launch.kernel();
      if (launch.placement() == Placement.WHOLE_GPU) {
        whole.items.add(new Item(k, names.get(k.id()), k.type(), k.soloNanos()));
      } else {
        SmLayout.Split split = (SmLayout.Split) lastPlan.layout();
        beGroup.items.add(new Item(k, names.get(k.id()), k.type(),
            k.soloNanos() * setup.totalSms() / (double) split.beSms()));
      }
    }
  }
}
