/**
 * The self-contained {@code report.html} of a run or a compare folder: built from the files a run leaves on disk
 * ({@code summary.json}, {@code timeline.jsonl}, {@code compare.json}, read as Jackson trees so the page does not
 * depend on the Java shape of the summary), one ECharts option per panel decided here in Java (a panel without
 * data is never emitted), and the ECharts bundle of the pinned webjar inlined into the page, so it opens offline.
 */
package org.gpuemu.emulator.report.html;
