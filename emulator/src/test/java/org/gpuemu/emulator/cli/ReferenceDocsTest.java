package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The committed reference pages are what the code generates now: a new subcommand, scenario key, policy or summary
 * key without a regenerated page fails here, with the command that regenerates them.
 */
class ReferenceDocsTest {
  private static final Path FOLDER = Paths.get("..").resolve(ReferenceDocs.FOLDER);

  @Test
  void everyCommittedPage_isWhatTheCodeGenerates() throws IOException {
    Map<String, String> pages = ReferenceDocs.pages(Paths.get(".."));
    for (Map.Entry<String, String> p : pages.entrySet()) {
      Path file = FOLDER.resolve(p.getKey());
      assertTrue(Files.isRegularFile(file), "docs/reference/" + p.getKey() + " is missing: regenerate the "
          + "reference with `" + ReferenceDocs.COMMAND + "` (from the repository's root) and commit it");
      assertEquals(p.getValue(), Files.readString(file), "docs/reference/" + p.getKey() + " is stale: regenerate "
          + "the reference with `" + ReferenceDocs.COMMAND + "` (from the repository's root) and commit it");
    }
    try (Stream<Path> files = Files.list(FOLDER)) {
      List<String> extra = files.map(f -> f.getFileName().toString()).filter(n -> !pages.containsKey(n)).toList();
      assertEquals(List.of(), extra, "docs/reference holds pages the code no longer generates: delete them, then run `"
          + ReferenceDocs.COMMAND + "`");
    }
  }

  @Test
  void theScenarioKeys_carryTheirCommentsKindsAndDefaults() {
    String keys = ReferenceDocs.scenarioKeys();
    // a key with its comment on the same line, continued on the line below
    assertTrue(keys.contains("| `scenario.fault-defaults.tdr-delay` | duration | `2s` | gpu-hang: the watchdog resets "
        + "the engine this long after the hung kernel started (Windows' TDR delay, TdrDelay's default of 2 s) |"),
        keys);
    // a real written with its decimal point keeps it; the comment of the next key is not taken for this one's
    assertTrue(keys.contains("| `scenario.vm-defaults.sla.fps` | real | `30.0` |"), keys);
    assertTrue(keys.contains("| `scenario.vm-defaults.vcpu-stall`") == false, keys);
  }

  @Test
  void aKeyList_showsItsKeysKindsAndWhetherRequired_neverAPlaceholderAsADefault() {
    String keys = ReferenceDocs.scenarioKeys();
    assertTrue(keys.contains("### `gpuemu.key-lists.fault`\n"), keys);
    assertTrue(keys.contains("| key | kind | required | meaning |"), keys);
    assertTrue(keys.contains("| `at` | duration | required | when it strikes, an emulated time within the run, e.g. "
        + "2s |"), keys);
    assertTrue(keys.contains("| `heal-after` | duration | optional | how long until it heals"), keys);
    assertTrue(keys.contains("| `tolerance-from` | text | required with a tolerance | where it comes from"), keys);
    assertFalse(keys.contains("| `gpuemu.key-lists."), "a key list's key shown with a default:\n" + keys);
  }

  @Test
  void theCommandLinePage_hasEverySubcommandsHelp() {
    String cli = ReferenceDocs.cli();
    for (String command : List.of("run", "validate", "list", "compare", "bench", "report", "reproduce", "soak", "node",
        "docs")) {
      assertTrue(cli.contains("\n## emulator " + command + "\n"), command);
    }
  }
}
