package org.gpuemu.emulator.gpu;

import org.apache.pekko.actor.typed.Behavior;
import org.gpuemu.emulator.gpu.Scheduling.AgentJoin;
import org.gpuemu.emulator.gpu.Scheduling.MayPresent;

/**
 * How a GPU scheduler answers the guest agents: their Present mode, and whether a Present may go. VGRIS's controller
 * ({@link VgrisController}) is one; every other policy passes Present through ({@link PassThroughAgents}). An agent
 * gets its mode once both it and its vGPU have joined (the two start concurrently).
 */
interface PresentControl {

  <T> Behavior<T> onAgentJoin(AgentJoin join);

  /** A vGPU joined: its agent, if already there, gets its mode now. */
  void vgpuJoined(int vgpu);

  <T> Behavior<T> onMayPresent(MayPresent ask);

  /** The VM's vGPU left. */
  void left(int vgpu);
}
