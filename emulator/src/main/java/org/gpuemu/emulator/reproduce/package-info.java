/**
 * {@code reproduce}: runs every scenario file that declares its paper's numbers ({@code scenario.expect}) under the
 * policies its figure compares, several seeds each, and judges each claim against the runs' summaries — reproduced,
 * same direction, contradicts, unfaithful, not run; input for the model's inputs; no number and not modelled for the
 * figures no run gives a number for — into {@code reproduction.json} and a Markdown table rendered from it
 * (docs/guides/reproducing.md). The judging ({@link org.gpuemu.emulator.reproduce.Judge}) is pure.
 */
package org.gpuemu.emulator.reproduce;
