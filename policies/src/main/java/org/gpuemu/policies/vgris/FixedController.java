package org.gpuemu.policies.vgris;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuemu.policies.gpu.VgpuParams;

/**
 * The administrator's choice of one algorithm for the whole run (VGRIS §3.1: the controller "receives commands from
 * the administrator to decide which scheduling algorithm to use"); reports change nothing. Under proportional share
 * the shares are the scenario's ({@link Shares#configured}), recomputed over the VMs present as they come and go.
 */
final class FixedController implements Controller {
  private final Algorithm algorithm;
  private final SortedMap<Integer, VgpuParams> vms = new TreeMap<>();

  FixedController(Algorithm algorithm) {
    this.algorithm = algorithm;
  }

  @Override
  public Set<Algorithm> algorithms() {
    return Set.of(algorithm);
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public void join(VgpuParams vm) {
    if (algorithm == Algorithm.PROPORTIONAL_SHARE) {
      List<VgpuParams> after = new ArrayList<>(vms.values());
      after.add(vm);
      Shares.configured(after);
    }
    vms.put(vm.vgpu(), vm);
  }

  @Override
  public void setShare(int vgpu, double share) {
    VgpuParams vm = vms.get(vgpu);
    if (algorithm != Algorithm.PROPORTIONAL_SHARE || vm == null) {
      throw new IllegalArgumentException(vm == null ? "no vGPU " + vgpu : "SLA-aware scheduling has no shares");
    }
    VgpuParams changed = new VgpuParams(vm.vgpu(), vm.name(), vm.weight(), share, vm.slaFps());
    List<VgpuParams> after = new ArrayList<>(vms.values());
    after.replaceAll(v -> v.vgpu() == vgpu ? changed : v);
    Shares.configured(after);
    vms.put(vgpu, changed);
  }

  @Override
  public void leave(int vgpu) {
    vms.remove(vgpu);
  }

  @Override
  public boolean secondEnded(long now, List<SecondReport> reports) {
    return false;
  }

  @Override
  public SortedMap<Integer, Double> shares() {
    return algorithm == Algorithm.PROPORTIONAL_SHARE ? Shares.configured(vms.values()) : new TreeMap<>();
  }

  @Override
  public List<AlgorithmSwitch> switches() {
    return List.of();
  }
}
