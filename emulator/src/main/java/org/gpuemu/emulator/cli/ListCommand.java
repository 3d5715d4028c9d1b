package org.gpuemu.emulator.cli;

import static org.gpuemu.emulator.cli.Main.BAD_INPUT;
import static org.gpuemu.emulator.cli.Main.OK;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import org.gpuemu.emulator.config.ConfigProblems;
import org.gpuemu.policies.spi.Param;
import org.gpuemu.policies.spi.PolicyCatalog;
import org.gpuemu.policies.spi.PolicyInput;
import org.gpuemu.policies.spi.PolicyKind;
import org.gpuemu.policies.spi.PolicySpec;
import org.gpuemu.workloads.Workload;
import org.gpuemu.workloads.WorkloadCatalog;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code list}: the scenario files, the registered policies (with their inputs and parameters) and workloads. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "Name the scenarios, policies and workloads.")
public final class ListCommand implements Callable<Integer> {
  @Option(names = "--conf", description = "folder of scenario files (default: conf/scenarios)")
  Path conf = Paths.get("conf", "scenarios");

  @Option(names = "--plugins", paramLabel = "DIR", description = "also list the policies of the plugin jars here")
  Path plugins;

  @Option(names = "--params", description = "also each policy's parameters, with their defaults and sources")
  boolean params;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override public Integer call() throws Exception {
    PrintWriter out = spec.commandLine().getOut();
    PolicyCatalog policies;
    try {
      policies = Plugins.catalog(plugins);
    } catch (ConfigProblems p) {
      p.problems().forEach(spec.commandLine().getErr()::println);
      return BAD_INPUT;
    }
    out.println("scenarios (" + conf + "):");
    if (Files.isDirectory(conf)) {
      try (Stream<Path> files = Files.walk(conf)) {
        files.filter(p -> p.toString().endsWith(".conf")).sorted().forEach(p -> out.println("  " + p));
      }
    } else {
      out.println("  (no such folder)");
    }
    listPolicies(out, policies, params);
    out.println("workloads:");
    for (Workload w : WorkloadCatalog.all().values()) out.println("  " + w.name() + " - " + w.description());
    return OK;
  }

  private static final Map<PolicyKind<?>, String> POLICY_HEADINGS = Map.of(
      PolicyKind.GPU, "gpu policies (scheduler.gpu.policy):",
      PolicyKind.SPACE, "space policies (scheduler.gpu.policy too: one game VM and best-effort VMs):",
      PolicyKind.CPU, "cpu policies (scheduler.cpu.policy):",
      PolicyKind.MEMORY, "memory policies (memory.policy):",
      PolicyKind.PLACEMENT, "placement policies (placement.policy: scenarios of many hosts):");

  /**
   * Each kind's policies: name, description, then where a plugin's came from and the inputs a policy declared
   * (e.g. {@code [needs cpu-time, bus-and-memory]}).
   */
  static void listPolicies(PrintWriter out, PolicyCatalog policies, boolean params) {
    for (PolicyKind<?> kind : PolicyKind.ALL) {
      out.println(POLICY_HEADINGS.get(kind));
      for (PolicyCatalog.Entry e : policies.of(kind).values()) {
        PolicySpec<?> spec = e.spec();
        StringBuilder line = new StringBuilder("  " + spec.name() + " - " + spec.description());
        if (!e.origin().equals(PolicyCatalog.BUILT_IN)) line.append(" [plugin: ").append(e.origin()).append(']');
        if (!spec.inputs().isEmpty()) {
          line.append(" [needs ").append(String.join(", ",
              spec.inputs().stream().sorted().map(PolicyInput::key).toList())).append(']');
        }
        out.println(line);
        if (!params) continue;
        for (Param p : spec.params()) {
          out.println("      " + p.name() + " = " + p.defaultValue() + "  # " + p.description());
        }
      }
    }
  }
}
