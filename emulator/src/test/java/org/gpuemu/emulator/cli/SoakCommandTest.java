package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A short soak of the default contention scenario: soak.json's shape, samples every check period, an ok verdict. */
@Tag("slow")
class SoakCommandTest {
  private static final Path SCENARIO = Path.of("..", "conf", "scenarios", "baseline", "default-contention.conf");
  @TempDir Path dir;

  @Test
  void shortSoak_writesSamplesEveryCheckPeriod_andJudgesItOk() throws Exception {
    Path out = dir.resolve("soak");
    MainTest.Result r = MainTest.execute("soak", SCENARIO.toString(), "--duration", "4s", "--scale", "2",
        "--check-every", "500ms", "--warm-up", "0s", "--out", out.toString());
    assertEquals(0, r.status(), r.out() + r.err());
    assertTrue(r.out().contains("soak verdict: ok"), r.out());
    JsonNode soak = new ObjectMapper().readTree(out.resolve("soak.json").toFile());
    JsonNode samples = soak.get("samples");
    // 4 s checked every 0.5 s. A mid-run sample is taken when the live loop (polled in wall time) sees a check time
    // passed, so how many a loaded machine catches is not the model's to say; what it guarantees: the final sample
    // (the run's end), at most one sample per check period, each after a check time, in model-time order
    assertTrue(samples.size() >= 1 && samples.size() <= 9, "samples: " + samples.size());
    for (String key : new String[] {"t_s", "wall_s", "heap_after_gc_bytes", "gcs", "threads", "submitted",
        "completed", "failed", "open", "completed_by_vm", "fidelity"}) {
      assertTrue(samples.get(0).has(key), key + " missing in " + samples.get(0));
    }
    assertTrue(samples.get(0).get("heap_after_gc_bytes").asLong() >= 0);
    JsonNode last = samples.get(samples.size() - 1);
    assertEquals(soak.get("emulated_seconds").asDouble(), last.get("t_s").asDouble(), 1e-3, "the last is the end's");
    long period = -1;
    long completed = 0;
    for (int i = 0; i < samples.size() - 1; i++) {
      JsonNode s = samples.get(i);
      long p = (long) Math.floor(s.get("t_s").asDouble() / 0.5 + 1e-9);
      assertTrue(p >= 1 && p > period, "one sample per check period, after a check time: " + samples);
      assertTrue(s.get("completed").asLong() >= completed, "completed counts only grow: " + samples);
      period = p;
      completed = s.get("completed").asLong();
    }
    assertEquals(3, last.get("completed_by_vm").size(), "the scenario's three games");
    assertTrue(last.get("completed").asLong() > completed, "requests went on: " + samples);
    assertEquals(last.get("submitted").asLong(), last.get("completed").asLong() + last.get("failed").asLong(),
        "at the end every request completed or failed");
    assertTrue(soak.get("verdict").get("ok").asBoolean());
    assertEquals(0, soak.get("summary").get("invariants").get("requests_lost").asLong());
    assertTrue(soak.get("rules").has("heap_growth_fraction"));
  }

  @Test
  void checkEveryOfZero_isBadInput() {
    MainTest.Result r = MainTest.execute("soak", SCENARIO.toString(), "--check-every", "0s", "--out",
        dir.resolve("bad").toString());
    assertEquals(2, r.status(), r.err());
    assertTrue(r.err().contains("--check-every 0s"), r.err());
  }
}
