package org.gpuemu.policies.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.gpu.FcfsPolicy;
import org.gpuemu.policies.gpu.GpuPolicy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PolicyCatalogTest {
  /** A provider offering a name the built-ins already use (found only through the test's service file). */
  public static final class Clashing implements PolicyProvider {
    @Override public List<PolicySpec<?>> policies() {
      return List.of(PolicySpec.gpu("fcfs", "a second fcfs", p -> new FcfsPolicy(2)));
    }
  }

  /** A provider whose class cannot be instantiated (no public no-argument constructor). */
  public static final class Broken implements PolicyProvider {
    public Broken(int unused) {}

    @Override public List<PolicySpec<?>> policies() {
      return List.of();
    }
  }

  @Test
  void builtIns_registerThroughTheServiceLoader_eachKindWithItsNames() {
    PolicyCatalog c = PolicyCatalog.builtIn();
    assertEquals(List.of("credit-hs", "credit-poll", "fairgv", "fcfs", "gvirt", "round-robin", "strict-co",
        "vgpu-best-effort", "vgpu-equal-share", "vgpu-fixed-share", "vgris-hybrid", "vgris-share", "vgris-sla", "vmcg"), c.names(PolicyKind.GPU));
    assertEquals(List.of("combo", "combo-exact", "combo-nm", "combo-relaxed", "pilotfish", "pilotfish-combo"), c.names(PolicyKind.SPACE));
    assertEquals(List.of("weighted-fair"), c.names(PolicyKind.CPU));
    assertEquals(List.of("gballoon", "static", "static-1024", "static-2048", "static-384", "static-512"),
        c.names(PolicyKind.MEMORY));
    c.entries().values().forEach(e -> assertEquals(PolicyCatalog.BUILT_IN, e.origin(), e.spec().name()));
  }

  @Test
  void everyBuiltIn_buildsFromItsDefaults_withTheInputsItDeclares() {
    // create() checks the built policy's interface, name and every declared input against what it implements
    for (PolicyCatalog.Entry e : PolicyCatalog.builtIn().entries().values()) {
      Object policy = e.spec().create(e.spec().defaults());
      for (PolicyInput in : e.spec().inputs()) assertTrue(in.capability().isInstance(policy), e.spec().name());
    }
    assertEquals(java.util.Set.of(PolicyInput.CPU_TIME, PolicyInput.BUS_AND_MEMORY),
        PolicyCatalog.builtIn().spec(PolicyKind.GPU, "vmcg").inputs());
  }

  @Test
  void anUnknownName_orOneOfAnotherKind_failsListingTheValidNames() {
    assertEquals("unknown CPU policy 'fcfs'; valid: weighted-fair",
        assertThrows(IllegalArgumentException.class,
            () -> PolicyCatalog.builtIn().spec(PolicyKind.CPU, "fcfs")).getMessage());
  }

  @Test
  void aNameOfferedTwice_isAPluginErrorNamingBothOrigins(@TempDir Path dir) throws IOException {
    PolicyCatalog.PluginException e = assertThrows(PolicyCatalog.PluginException.class,
        () -> PolicyCatalog.load(loaderListing(dir, Clashing.class)));
    assertEquals("policy name 'fcfs' is offered twice: by a GPU policy (built-in) and by "
        + Clashing.class.getName() + " (test-classes); a plugin must choose a name no other policy has", e.getMessage());
  }

  @Test
  void aProviderThatCannotBeBuilt_isAPluginError(@TempDir Path dir) throws IOException {
    PolicyCatalog.PluginException e = assertThrows(PolicyCatalog.PluginException.class,
        () -> PolicyCatalog.load(loaderListing(dir, Broken.class)));
    assertTrue(e.getMessage().startsWith("a policy provider failed to load: "), e.getMessage());
    assertTrue(e.getMessage().contains(Broken.class.getName()), e.getMessage());
  }

  @Test
  void aDeclaredInputThePolicyDoesNotImplement_failsWhenBuilt_andSoDoesAnUndeclaredOne() {
    PolicySpec<GpuPolicy> lying = PolicySpec.gpu("fcfs", "fcfs claiming CPU time", p -> new FcfsPolicy(2))
        .needs(PolicyInput.CPU_TIME);
    assertEquals("policy 'fcfs' declares input CPU_TIME but does not implement org.gpuemu.policies.gpu.CpuTimeInput",
        assertThrows(IllegalStateException.class, () -> lying.create(PolicyParams.empty())).getMessage());
    PolicySpec<GpuPolicy> vmcg = PolicyCatalog.builtIn().spec(PolicyKind.GPU, "vmcg");
    PolicySpec<GpuPolicy> silent = new PolicySpec<>(PolicyKind.GPU, "vmcg", "vmcg declaring nothing", vmcg.params(),
        java.util.Set.of(), vmcg.factory());
    assertEquals("policy 'vmcg' implements CpuTimeInput but does not declare needs(PolicyInput.CPU_TIME)",
        assertThrows(IllegalStateException.class, () -> silent.create(vmcg.defaults())).getMessage());
  }

  @Test
  void aSpecNamingAnotherPolicy_failsWhenBuilt() {
    PolicySpec<GpuPolicy> other = PolicySpec.gpu("my-fcfs", "fcfs under another name", p -> new FcfsPolicy(2));
    assertEquals("policy 'my-fcfs' built a policy calling itself 'fcfs'",
        assertThrows(IllegalStateException.class, () -> other.create(PolicyParams.empty())).getMessage());
  }

  @Test
  void anInputOfAnotherKind_isRefused() {
    assertEquals("policy 'x': input gtt-copies is for a memory policy, not a GPU policy",
        assertThrows(IllegalArgumentException.class,
            () -> PolicySpec.gpu("x", "x", p -> new FcfsPolicy(2)).needs(PolicyInput.GTT_COPIES)).getMessage());
  }

  @Test
  void params_typeTheirDefaults_asThePolicyReadsThem() {
    Map<String, Object> values = PolicySpec.gpu("x", "x", p -> new FcfsPolicy(2)).param(
        Param.duration("a", "1.5ms", "a"), Param.bytes("b", "384MiB", "b"), Param.integer("c", 4, "c"),
        Param.real("d", 0.5, "d"), Param.flag("e", true, "e"), Param.text("f", "fast", "f")).defaults().values();
    assertEquals(Map.of("a", 1_500_000L, "b", 384L << 20, "c", 4L, "d", 0.5, "e", "true", "f", "fast"), values);
  }

  @Test
  void params_refuseBadNamesAndDefaults() {
    assertEquals("parameter 'slice': default '16' is not a duration with a unit, e.g. 16ms",
        assertThrows(IllegalArgumentException.class, () -> Param.duration("slice", "16", "x")).getMessage());
    assertEquals("parameter name 'Slice' must be lower-case words joined by '-'",
        assertThrows(IllegalArgumentException.class, () -> Param.integer("Slice", 1, "x")).getMessage());
    assertEquals("policy 'x': parameter 'a' twice", assertThrows(IllegalArgumentException.class,
        () -> PolicySpec.gpu("x", "x", p -> new FcfsPolicy(2)).param(Param.integer("a", 1, "a"),
            Param.integer("a", 2, "a"))).getMessage());
    assertFalse(PolicySpec.gpu("x", "x", p -> new FcfsPolicy(2)).declares(PolicyInput.PRESENT));
  }

  /** A class loader whose service file lists {@code provider} (a class the test's own loader has). */
  private static ClassLoader loaderListing(Path dir, Class<?> provider) throws IOException {
    Path services = Files.createDirectories(dir.resolve("META-INF/services"));
    Files.writeString(services.resolve(PolicyProvider.class.getName()), provider.getName() + "\n");
    return new URLClassLoader(new URL[] {dir.toUri().toURL()}, PolicyCatalogTest.class.getClassLoader());
  }
}
