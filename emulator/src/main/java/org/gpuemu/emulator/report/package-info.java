/**
 * Reports of a run: summary.json (the records of {@code SummaryDoc}, written by Jackson) with the invariant checks
 * and the fidelity verdict, and the printed table.
 */
package org.gpuemu.emulator.report;
