package org.gpuemu.emulator.clock;

/**
 * A timer message: it stands for an event at emulated time {@link #due()}. The causal inbox orders it with the
 * actor's stamped messages by that time (a record with a {@code due} component implements this by itself).
 */
public interface Timed {

  /** The emulated time of the event the timer stands for. */
  long due();
}
