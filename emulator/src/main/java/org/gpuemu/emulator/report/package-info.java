/** Reports of a run: summary.json with the invariant checks and the fidelity verdict, and the printed table. */
package org.gpuemu.emulator.report;
