package org.gpuemu.emulator.scenario;

/**
 * The time scale the scenario tests run at: as fast as the machine goes. Under the conservative order a run's
 * figures do not depend on its time scale or on how late any thread is — the same seed gives the same summary at
 * any scale ({@link DeterminismTest}) — so a test that asserts figures waits for no wall clock: at this scale every
 * timer is due before the model reaches it, and the run is paced by its events alone. Its verdict then reads
 * "lag" (it did not run in real time), which no figure test asserts.
 */
final class FastForward {
  /** Emulated seconds per wall second asked for; the run goes as fast as its events are handled. */
  static final double SCALE = 1000;

  private FastForward() {}
}
