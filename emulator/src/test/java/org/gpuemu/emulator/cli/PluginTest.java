package org.gpuemu.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.gpuemu.policies.spi.PolicyProvider;
import org.gpuemu.workloads.KernelSpec;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin guide (docs/guides/writing-a-policy-plugin.md), end to end: the walkthrough's files, copied out of the
 * guide, compiled against the policies module alone into their own jar, loaded with {@code --plugins}. The plugin declares the CPU time
 * input and reports how many CPU time reports it received, so the test sees the input wired.
 */
@Tag("slow")
class PluginTest {
  private static final Pattern FILE =
      Pattern.compile("<!-- plugin-file: (\\S+) -->\\s*```\\w*\\n(.*?)```", Pattern.DOTALL);

  @TempDir static Path work;
  static Path project;
  static Path plugins;

  @BeforeAll
  static void buildThePluginFromTheGuide() throws IOException {
    project = Files.createDirectories(work.resolve("least-cpu"));
    Map<String, String> files = guideFiles();
    assertEquals(List.of("pom.xml", "src/main/java/org/example/LeastCpuPolicy.java",
        "src/main/java/org/example/LeastCpuProvider.java",
        "src/main/resources/META-INF/services/org.gpuemu.policies.spi.PolicyProvider", "scenario.conf"),
        List.copyOf(files.keySet()));
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = project.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    Path classes = Files.createDirectories(project.resolve("target/classes"));
    try (Stream<Path> sources = Files.walk(project.resolve("src/main/java"))) {
      compile(classes, sources.filter(p -> p.toString().endsWith(".java")).toList());
    }
    plugins = Files.createDirectories(work.resolve("plugins"));
    jar(plugins.resolve("least-cpu-policy-1.0.jar"), classes, project.resolve("src/main/resources"));
  }

  @Test
  void list_showsThePluginPolicy_withItsOriginAndInputs() {
    MainTest.Result r = MainTest.execute("list", "--plugins", plugins.toString(), "--params");
    assertEquals(0, r.status(), r.toString());
    assertTrue(r.out().contains("  least-cpu - least CPU first: the GPU goes to the VM that has used the least CPU "
        + "time per weight [plugin: least-cpu-policy-1.0.jar] [needs cpu-time]"), r.out());
    assertTrue(r.out().contains("      max-inflight = 2  # requests handed to the GPU but not finished"), r.out());
    assertTrue(r.out().contains("  fcfs - "), "the built-ins are listed beside it");
  }

  @Test
  void run_withPlugins_runsThePolicy_andItReceivesTheCpuTimeItDeclared() throws IOException {
    Path out = work.resolve("run");
    MainTest.Result r = MainTest.execute("run", project.resolve("scenario.conf").toString(), "--plugins",
        plugins.toString(), "--duration", "2s", "--warm-up", "0s", "--out", out.toString());
    assertEquals(0, r.status(), r.toString());
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertEquals("least-cpu", summary.get("policy").asText(), summary.toString());
    JsonNode figures = summary.get("least-cpu");
    assertTrue(figures != null && figures.get("cpu_time_reports").asLong() > 0,
        "the plugin declared cpu-time and got no CPU time report: " + summary);
    for (JsonNode vm : summary.get("vms")) assertTrue(vm.get("requests_completed").asLong() > 0, vm.toString());
  }

  @Test
  void validate_checksThePluginsParameters_atTheirKeyPath() throws IOException {
    Path bad = Files.writeString(work.resolve("bad.conf"),
        Files.readString(project.resolve("scenario.conf")).replace("max-inflight = 2", "max-inflight = 0, slice = 2ms"));
    MainTest.Result r = MainTest.execute("validate", bad.toString(), "--plugins", plugins.toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("scenario.scheduler.gpu.slice: not a parameter of policy 'least-cpu'; its parameters: "
        + "[max-inflight]"), r.err());
    r.assertNoStackTrace();
    Path zero = Files.writeString(work.resolve("zero.conf"),
        Files.readString(project.resolve("scenario.conf")).replace("max-inflight = 2", "max-inflight = 0"));
    r = MainTest.execute("validate", zero.toString(), "--plugins", plugins.toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("scenario.scheduler.gpu.max-inflight: expected an integer > 0, got 0"), r.err());
  }

  @Test
  void withoutPlugins_thePolicyIsUnknown_andBadPluginFoldersAreBadInput() throws IOException {
    MainTest.Result r = MainTest.execute("validate", project.resolve("scenario.conf").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("scenario.scheduler.gpu.policy: unknown policy 'least-cpu'; valid: "), r.err());
    r = MainTest.execute("list", "--plugins", work.resolve("nowhere").toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("--plugins " + work.resolve("nowhere") + ": no such folder"), r.err());
    Path empty = Files.createDirectories(work.resolve("empty"));
    r = MainTest.execute("run", project.resolve("scenario.conf").toString(), "--plugins", empty.toString());
    assertEquals(2, r.status(), r.toString());
    assertTrue(r.err().contains("no .jar file in the folder"), r.err());
  }

  @Test
  void aPluginClashingWithABuiltInName_isBadInput_namingItsJar() throws IOException {
    Path src = Files.createDirectories(work.resolve("clash/src/org/example"));
    Files.writeString(src.resolve("ClashProvider.java"), """
        package org.example;

        import java.util.List;
        import org.gpuemu.policies.gpu.FcfsPolicy;
        import org.gpuemu.policies.spi.PolicyProvider;
        import org.gpuemu.policies.spi.PolicySpec;

        public final class ClashProvider implements PolicyProvider {
          @Override public List<PolicySpec<?>> policies() {
            return List.of(PolicySpec.gpu("fcfs", "another fcfs", p -> new FcfsPolicy(2)));
          }
        }
        """);
    Path classes = Files.createDirectories(work.resolve("clash/classes"));
    compile(classes, List.of(src.resolve("ClashProvider.java")));
    Path services = Files.createDirectories(work.resolve("clash/resources/META-INF/services"));
    Files.writeString(services.resolve(PolicyProvider.class.getName()), "org.example.ClashProvider\n");
    Path dir = Files.createDirectories(work.resolve("clash/plugins"));
    jar(dir.resolve("clash.jar"), classes, work.resolve("clash/resources"));
    MainTest.Result r = MainTest.execute("list", "--plugins", dir.toString());
    assertEquals(2, r.status(), r.toString());
    assertEquals(List.of("--plugins " + dir + ": policy name 'fcfs' is offered twice: by a GPU policy (built-in) and "
        + "by org.example.ClashProvider (clash.jar); a plugin must choose a name no other policy has"), r.errLines());
  }

  /** The files of the plugin guide's walkthrough, by path, in the guide's order. */
  static Map<String, String> guideFiles() throws IOException {
    String guide = Files.readString(Paths.get("..", "docs", "guides", "writing-a-policy-plugin.md"));
    Map<String, String> files = new LinkedHashMap<>();
    Matcher m = FILE.matcher(guide);
    while (m.find()) files.put(m.group(1), m.group(2));
    return files;
  }

  /** Compiles against the policies module and what it depends on, nothing else (as the guide's pom does). */
  static void compile(Path classes, List<Path> sources) {
    List<String> args = new ArrayList<>(List.of("--release", "17", "-d", classes.toString(), "-classpath",
        location(PolicyProvider.class) + java.io.File.pathSeparator + location(KernelSpec.class)));
    sources.forEach(p -> args.add(p.toString()));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "does not compile: " + sources);
  }

  private static String location(Class<?> type) {
    try {
      return Paths.get(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static void jar(Path jar, Path... roots) throws IOException {
    try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file)) {
      for (Path root : roots) {
        try (Stream<Path> files = Files.walk(root)) {
          for (Path f : files.filter(Files::isRegularFile).sorted().toList()) {
            out.putNextEntry(new JarEntry(root.relativize(f).toString().replace('\\', '/')));
            Files.copy(f, out);
            out.closeEntry();
          }
        }
      }
    }
  }
}
