package org.gpuemu.policies.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.PolicyParams;
import org.gpuemu.policies.Violations;

/**
 * Static per-VM GPU memory with a hard cap, FairGV §6: "FairGV prevents a vGPU from allocating memory beyond its
 * allowed amount through inspecting the device memory (de-)allocation functions". It is also the shape of
 * gBalloon's static baselines (gVirt-384, gVirt-1024), where each vGPU's share is fixed when it is created.
 *
 * <p>Interpretations: an allocation is granted in full when {@code allocated + bytes <= cap} and rejected in full
 * otherwise, with a reason naming the VM, the request, the cap and what it holds; there are no partial grants and
 * nothing is ever granted past the cap. A free of more than the VM holds is clamped to zero and remembered as an
 * invariant violation (a guest freeing what it never had is an accounting bug upstream). Allocating or freeing
 * zero bytes is a no-op that is granted.
 *
 * <p>Parameters: none (caps come per VM through {@link #addVm}).
 */
public final class StaticCapPolicy implements MemoryPolicy {
  /** Registry name. */
  public static final String NAME = "static";

  private static final long KIB = 1024;
  private static final long MIB = 1024 * KIB;

  private static final class Vm {
    final String name;
    final long cap;
    long held;

    Vm(String name, long cap) {
      this.name = name;
      this.cap = cap;
    }
  }

  private final SortedMap<Integer, Vm> vms = new TreeMap<>();
  private final Violations violations = new Violations();

  /** Reads no parameters; takes them for the registry's uniform factory shape. */
  public StaticCapPolicy(PolicyParams params) {}

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public void addVm(int vm, String name, long capBytes) {
    if (capBytes < 0) {
      throw new IllegalArgumentException(NAME + ": vm '" + name + "' has a negative cap " + capBytes);
    }
    if (vms.putIfAbsent(vm, new Vm(name, capBytes)) != null) {
      throw new IllegalArgumentException(NAME + ": vm " + vm + " ('" + name + "') added twice");
    }
  }

  @Override
  public MemoryDecision allocate(int vm, long bytes, long now) {
    Vm v = vm(vm, bytes, "allocate");
    if (bytes > v.cap - v.held) {
      return new MemoryDecision.Rejected("vm '" + v.name + "': allocation of " + size(bytes)
          + " would exceed its cap of " + size(v.cap) + " (holds " + size(v.held) + ")");
    }
    v.held += bytes;
    return new MemoryDecision.Granted(bytes);
  }

  @Override
  public void free(int vm, long bytes, long now) {
    Vm v = vm(vm, bytes, "free");
    if (bytes > v.held) {
      violations.add(NAME + ": vm '" + v.name + "' freed " + size(bytes) + " while holding " + size(v.held)
          + " (clamped to 0)");
      v.held = 0;
    } else {
      v.held -= bytes;
    }
  }

  @Override
  public long allocated(int vm) {
    return vm(vm, 0, "query").held;
  }

  @Override
  public List<String> checkInvariants() {
    List<String> found = new ArrayList<>(violations.list());
    for (Vm v : vms.values()) {
      if (v.held < 0 || v.held > v.cap) {
        found.add(NAME + ": vm '" + v.name + "' holds " + size(v.held) + " outside [0, cap " + size(v.cap) + "]");
      }
    }
    return found;
  }

  private Vm vm(int vm, long bytes, String action) {
    Vm v = vms.get(vm);
    if (v == null) {
      throw new IllegalArgumentException(NAME + ": " + action + " for unknown vm " + vm + "; known " + vms.keySet());
    }
    if (bytes < 0) {
      throw new IllegalArgumentException(NAME + ": vm '" + v.name + "' cannot " + action + " " + bytes + " bytes");
    }
    return v;
  }

  /** Exact sizes in the largest binary unit that divides them, so a reason never rounds. */
  public static String size(long bytes) {
    if (bytes != 0 && bytes % MIB == 0) {
      return bytes / MIB + " MiB";
    }
    if (bytes != 0 && bytes % KIB == 0) {
      return bytes / KIB + " KiB";
    }
    return bytes + (bytes == 1 ? " byte" : " bytes");
  }
}
