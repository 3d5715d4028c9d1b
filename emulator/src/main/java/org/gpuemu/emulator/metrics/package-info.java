/**
 * Metrics of a run: the MetricsHub actor aggregates frames and GPU time per VM and streams the timeline through
 * a bounded Pekko Streams queue to its file sink.
 */
package org.gpuemu.emulator.metrics;
