package org.gpuemu.emulator.gpu;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.gpuemu.emulator.gpu.Scheduling.AgentJoin;
import org.gpuemu.emulator.gpu.Scheduling.MayPresent;
import org.gpuemu.emulator.gpu.Scheduling.PresentAllowed;
import org.gpuemu.emulator.gpu.Scheduling.SetMode;
import org.gpuemu.emulator.gpu.Scheduling.ToAgent;
import org.gpuemu.policies.vgris.PresentMode;

/** The guest agents under a policy that does not intercept Present: pass-through, every Present allowed at once. */
final class PassThroughAgents implements PresentControl {
  private final Map<Integer, ActorRef<ToAgent>> agents = new HashMap<>();
  /** The vGPUs that joined the scheduler (a live view). */
  private final Set<Integer> joined;

  PassThroughAgents(Set<Integer> joined) {
    this.joined = joined;
  }

  @Override public <T> Behavior<T> onAgentJoin(AgentJoin join) {
    agents.put(join.vgpu(), join.agent());
    if (joined.contains(join.vgpu())) join.agent().tell(new SetMode(new PresentMode.PassThrough()));
    return Behaviors.same();
  }

  @Override public void vgpuJoined(int vgpu) {
    ActorRef<ToAgent> agent = agents.get(vgpu);
    if (agent != null) agent.tell(new SetMode(new PresentMode.PassThrough()));
  }

  @Override public <T> Behavior<T> onMayPresent(MayPresent ask) {
    ask.replyTo().tell(PresentAllowed.INSTANCE);
    return Behaviors.same();
  }

  @Override public void left(int vgpu) {
    agents.remove(vgpu);
  }
}
