/**
 * The live dashboard of a wall-clock run ({@code run S --dashboard}): a Pekko HTTP server in its own actor system
 * that serves one page and a Server-Sent Events stream of the run's timeline rows (tapped from the metrics hub's
 * file stream), its live fidelity (the progress line's view) and its final summary. It only observes: the browser
 * never reaches an actor of the run, and a run without a dashboard adds no stage and no message.
 */
package org.gpuemu.emulator.dashboard;
