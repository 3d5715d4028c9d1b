/**
 * Metrics of a run: the MetricsHub actor aggregates frames and GPU time per VM and streams the timeline through
 * a bounded Pekko Streams queue to its file sink; the frequent reports reach it through MetricsPorts (one
 * single-producer ReportLog per reporting actor, drained by the hub), the rare ones as messages.
 */
package org.gpuemu.emulator.metrics;
