package org.gpuemu.emulator;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.junit.jupiter.api.Test;

/**
 * The layering of issue 22: {@code workloads <- policies <- emulator}, with no Pekko below the emulator, and no import
 * cycle between the emulator's packages (clock, config and faults at the bottom, then metrics, cpu, gpu, vm, host,
 * run, report, bench, dashboard or soak, and cli). A package that needs to tell a higher one something owns the event type and the
 * receiver adapts it ({@code CpuScheduler.SwitchedTo}, {@code CoscheduleRouter.Coschedule}). Also the size of the
 * actors: the GPU scheduler's dispatch core stays under 250 lines and no actor grows over 350.
 */
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
  void gpuSchedulerCore_isAtMost250Lines_andNoActorOver350() throws IOException {
    Map<String, Integer> over = new TreeMap<>();
    for (JavaClass c : CLASSES) {
      if (!c.isAssignableTo(AbstractBehavior.class) || c.isNestedClass() || c.isAnonymousClass()) continue;
      String file = c.getPackageName().replace("org.gpuemu.emulator.", "") + "/" + c.getSimpleName() + ".java";
      int lines = Files.readAllLines(Path.of("src/main/java/org/gpuemu/emulator", file)).size();
      int limit = c.getSimpleName().equals("GpuScheduler") ? 250 : 350;
      if (lines > limit) over.put(file, lines);
    }
    assertEquals(Map.of(), over, "actors over their line limit");
  }
}
