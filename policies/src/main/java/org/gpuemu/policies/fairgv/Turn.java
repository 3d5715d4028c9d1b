package org.gpuemu.policies.fairgv;

/**
 * One vGPU's turn on the GPU under FairGV: when it may hand the GPU another request, what it has used, and when it
 * releases the GPU. The scheduling discipline follows the GPU (fairgv.txt §3.3.2): {@link CollaborativeTurn} on a
 * non-preemptive GPU, {@link TimedTurn} on a preemptive one.
 */
sealed interface Turn permits CollaborativeTurn, TimedTurn {
  /** Whether the owner may dispatch one more request now, with {@code ownInflight} of its own still running. */
  boolean mayDispatch(long now, int ownInflight);

  /** The owner dispatched a request. */
  void dispatched();

  /** One of the owner's requests completed having used {@code gpuNanos}. */
  void completed(long gpuNanos);

  /** The owner held the GPU for {@code nanos} with an empty request ring. */
  void idled(long nanos);

  /** Whether the turn is over, so the owner releases the GPU. */
  boolean over(long now, int ownInflight);

  /** The execution length L of the turn so far: its requests' GPU time plus the time it held the GPU idle. */
  long usage();

  /** When the turn of an owner that went idle at {@code idleSince}, and stays idle, is over at the latest. */
  long idleUntil(long idleSince);
}
