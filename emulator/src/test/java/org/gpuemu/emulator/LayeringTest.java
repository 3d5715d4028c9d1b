package org.gpuemu.emulator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The layering: {@code workloads <- policies <- emulator}, with no Pekko below the emulator, and no import
 * cycle between the emulator's packages (clock, config and faults at the bottom, then metrics, cpu, gpu, vm, host,
 * run, report, bench, dashboard or soak, and cli). A package that needs to tell a higher one something owns the event
 * type and the receiver adapts it ({@code CpuScheduler.SwitchedTo}, {@code CoscheduleRouter.Coschedule}). Also sizes:
 * the GPU scheduler's dispatch core stays under 250 lines, and every main source file within the size goals of
 * {@link SourceSizes} (files, methods, parameter lists).
 */
@Tag("slow")
class LayeringTest {

  private static final JavaClasses CLASSES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("org.gpuemu");

  @Test
  void workloads_dependOnNeitherPoliciesNorTheEmulatorNorPekko() {
    noClasses().that().resideInAPackage("org.gpuemu.workloads..")
        .should().dependOnClassesThat()
        .resideInAnyPackage("org.gpuemu.policies..", "org.gpuemu.emulator..", "org.apache.pekko..")
        .check(CLASSES);
  }

  @Test
  void policies_dependNeitherOnTheEmulatorNorOnPekko() {
    noClasses().that().resideInAPackage("org.gpuemu.policies..")
        .should().dependOnClassesThat().resideInAnyPackage("org.gpuemu.emulator..", "org.apache.pekko..")
        .check(CLASSES);
  }

  @Test
  void emulatorPackages_importEachOtherInNoCycle() {
    slices().matching("org.gpuemu.emulator.(*)..").should().beFreeOfCycles().check(CLASSES);
  }

  @Test
  void gpuSchedulerCore_isAtMost250Lines() throws IOException {
    int lines = Files.readAllLines(Path.of("src/main/java/org/gpuemu/emulator/gpu/GpuScheduler.java")).size();
    assertTrue(lines <= 250, "gpu/GpuScheduler.java has " + lines + " lines, over its 250");
  }

  /**
   * The size goals, over every main source file of the three modules: no file over {@value SourceSizes#MAX_FILE_LINES}
   * lines, no method or constructor body over {@value SourceSizes#MAX_METHOD_LINES}, no constructor or static method
   * over {@value SourceSizes#MAX_PARAMETERS} parameters (a record's canonical constructor is its list of components, a
   * settings record, and is not counted). The offenders left are named in {@link SourceSizes#ALLOWED} with their
   * present size as a ceiling: a new offender fails, an offender that grows fails, and an entry that no longer
   * offends fails until it is removed, so the list only shrinks.
   */
  @Test
  void sourceSizes_withinTheGoals_orNamedInTheShrinkingAllowList() throws IOException {
    Map<String, Integer> measured = SourceSizes.offenders(List.of(Path.of("../workloads/src/main/java"),
        Path.of("../policies/src/main/java"), Path.of("src/main/java")));
    List<String> problems = new ArrayList<>();
    measured.forEach((key, size) -> {
      Integer ceiling = SourceSizes.ALLOWED.get(key);
      if (ceiling == null) problems.add("new offender: " + key + " = " + size);
      else if (size > ceiling) problems.add("grew: " + key + " = " + size + " (allowed " + ceiling + ")");
    });
    SourceSizes.ALLOWED.forEach((key, ceiling) -> {
      if (!measured.containsKey(key)) problems.add("within the goal now, remove from SourceSizes.ALLOWED: " + key);
    });
    assertEquals(List.of(), problems, "source size goals (SourceSizes)");
  }
}
