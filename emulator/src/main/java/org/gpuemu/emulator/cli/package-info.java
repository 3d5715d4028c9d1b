/** The command line (picocli): run, validate and list, with the exit statuses of the output contract. */
package org.gpuemu.emulator.cli;
