package org.gpuemu.emulator.soak;

import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.annotation.JsonNaming;
import java.util.Map;

/**
 * One check of a soak: when (emulated and wall seconds), the heap used right after the JVM's last GC and how many
 * collections it has run so far ({@link HeapAfterGc}), the JVM's live threads, the guests' requests so far (all VMs)
 * and each VM's completed ones, the run's causal order so far (events handed over in order, those handled more than
 * the horizon behind the wall clock, causality violations: cumulative, so that the rules judge each stretch between
 * two samples), the p99 timer lateness since the previous live view (emulated µs, -1 unknown), and the fidelity
 * verdict so far. Live actors are not counted: Pekko keeps no cheap count of them (it would take walking the actor
 * tree with a message to every actor, which is what a soak must not perturb).
 */
@JsonNaming(PropertyNamingStrategies.SnakeCaseStrategy.class)
public record SoakSample(double tS, double wallS, long heapAfterGcBytes, long gcs, int threads, long submitted,
    long completed, long failed, long open, Map<String, Long> completedByVm, long eventsOrdered,
    long eventsBeyondHorizon, long violations, long timerLatenessP99Us, String fidelity) {
  public SoakSample {
    completedByVm = Map.copyOf(completedByVm);
  }
}
