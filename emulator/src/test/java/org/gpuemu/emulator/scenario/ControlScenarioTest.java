package org.gpuemu.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.gpuemu.emulator.config.ScenarioLoader;
import org.gpuemu.emulator.config.Settings;
import org.gpuemu.emulator.report.Summary;
import org.gpuemu.emulator.report.SummaryDoc;
import org.gpuemu.emulator.run.Control;
import org.gpuemu.emulator.run.Runner;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboard's weight and share controls on the policies that weigh VMs, replayed as planned controls (what
 * {@code run --controls} does with a run's record) so that each run is its seed's: a weight raised halfway under
 * FairGV raises that VM's GPU share from then on; a share raised under VGRIS's proportional share raises that VM's
 * GPU time; a policy without weights refuses the change with its reason, and the run is the run without it.
 */
@Tag("slow")
class ControlScenarioTest {
  private static final Path CONF = Paths.get(System.getProperty("conf.dir", "../conf"), "scenarios");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long S = 1_000_000_000L;

  private static Summary run(String file, long seconds, List<Control.Planned> planned, Path out) throws Exception {
    Settings.Scenario s = ScenarioLoader.load(CONF.resolve(file), new ScenarioLoader.Overrides(FastForward.SCALE,
        seconds * S, null, Map.of("metrics.period", "250ms")));
    Summary summary = new Summary(Runner.run(s, out, Runner.Options.every(500, v -> { })
        .withAttach(new Runner.Attach(x -> { }, r -> { }, planned))));
    assertTrue(summary.brokenInvariants().isEmpty(), summary.brokenInvariants().toString());
    return summary;
  }

  /** The mean of a VM's {@code key} over the timeline's periods ending in (from, to]. */
  private static double mean(Path out, String vm, String key, double from, double to) throws Exception {
    double sum = 0;
    int n = 0;
    for (String line : Files.readAllLines(out.resolve("timeline.jsonl"))) {
      JsonNode row = JSON.readTree(line);
      double t = row.get("t_s").asDouble();
      if (row.get("vm").asText().equals(vm) && t > from && t <= to) {
        sum += row.get(key).asDouble();
        n++;
      }
    }
    assertTrue(n > 0, "no rows of " + vm + " in (" + from + ", " + to + "]");
    return sum / n;
  }

  @Test
  void fairgv_weightRaisedHalfway_raisesThatVmsShareFromThen_andIsRecorded(@TempDir Path out) throws Exception {
    // Figure 8's three BS VMs at weights 1:2:3; vm1's weight becomes 6 at 1 s
    Summary plain = run("fairgv/non-congested-bs.conf", 2, List.of(), out.resolve("plain"));
    Summary changed = run("fairgv/non-congested-bs.conf", 2,
        List.of(new Control.Planned(S, new Control.Weight("vm1", 6))), out.resolve("changed"));
    double before = mean(out.resolve("changed"), "vm1", "gpu_share", 0.25, 1.0);
    double after = mean(out.resolve("changed"), "vm1", "gpu_share", 1.25, 2.0);
    double plainAfter = mean(out.resolve("plain"), "vm1", "gpu_share", 1.25, 2.0);
    assertEquals(before, mean(out.resolve("plain"), "vm1", "gpu_share", 0.25, 1.0), 1e-9, "the same run until 1 s");
    // 1/6 of the GPU at weight 1 of 6; 6/11 at weight 6 of 11: at least twice its share before
    assertTrue(after > 2 * before && after > 2 * plainAfter, "vm1's share " + before + " -> " + after
        + " (unchanged run: " + plainAfter + ")");
    List<SummaryDoc.Control> controls = changed.doc().controls();
    assertEquals(1, controls.size());
    assertEquals(new SummaryDoc.Control("weight", null, "vm1", 6, null, 1.0, true, null, null), controls.get(0));
  }

  @Test
  void vgrisShare_shareRaisedHalfway_raisesThatVmsGpuTime(@TempDir Path out) throws Exception {
    // Table 2's NBA 2012 at share 0.3 beside 3DMark05 GT1 at 0.5; NBA 2012's share becomes 0.5 at 2 s (sum 1.0)
    Summary changed = run("vgris/proportional-share.conf", 4,
        List.of(new Control.Planned(2 * S, new Control.Share("nba2012", 0.5))), out);
    double before = mean(out, "nba2012", "gpu_usage", 0.5, 2.0);
    double after = mean(out, "nba2012", "gpu_usage", 2.5, 4.0);
    assertTrue(after > 1.3 * before, "NBA 2012's GPU usage " + before + " -> " + after);
    assertEquals(Boolean.TRUE, changed.doc().controls().get(0).applied());
    assertEquals(0.5, changed.doc().vms().get("nba2012").setup().share(), "the policy's share at the end");
  }

  @Test
  void fcfs_refusesAWeight_withItsReason_andTheRunIsTheRunWithoutIt(@TempDir Path out) throws Exception {
    Summary plain = run("baseline/default-contention.conf", 2, List.of(), out.resolve("plain"));
    Summary refused = run("baseline/default-contention.conf", 2,
        List.of(new Control.Planned(S, new Control.Weight("dirt3", 4))), out.resolve("refused"));
    SummaryDoc.Control c = refused.doc().controls().get(0);
    assertEquals(Boolean.FALSE, c.applied());
    assertEquals("fcfs gives no VM a weight", c.note());
    assertEquals(plain.doc().vms(), refused.doc().vms());
  }
}
