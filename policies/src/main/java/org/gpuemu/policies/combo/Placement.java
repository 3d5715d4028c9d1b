package org.gpuemu.policies.combo;

/** Where a BE kernel runs. */
public enum Placement {
  /**
   * On every SM, beside whatever else runs there (render kernels, the other BE stream's kernel), co-located by the
   * GPU's {@link ColocationTable}: the relaxed and temporal schemes, and the exact scheme before its first frame.
   */
  WHOLE_GPU,
  /** On the BE group of the {@link SmLayout.Split} in force (exact integrated SM sharing). */
  BE_GROUP
}
