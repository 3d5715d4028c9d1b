package org.gpuemu.policies.combo;

/** Which version of a frame's render kernels is launched (combo.txt §4.2 Figure 8, §5.3 Figure 11). */
public enum Binding {
  /** The SM-bounding version: each block runs only on the render group's SMs (Figure 8). */
  SM_BOUND,
  /**
   * The original version: blocks go to any SM that has room, so SMs still held by a BE kernel do not delay the
   * frame (Figure 11c). Launched when the render group grows or the scheme switches, and always by PilotFish, which
   * does not convert kernels.
   */
  ORIGINAL
}
