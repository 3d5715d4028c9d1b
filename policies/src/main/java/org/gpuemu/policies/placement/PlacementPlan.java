package org.gpuemu.policies.placement;

import java.util.ArrayList;
import java.util.List;

/**
 * The reservations of a GPU cloud over model time, and the placement of each arriving VM through a
 * {@link PlacementPolicy}. A VM reserves its request on one GPU (and CPU on that GPU's host) from its start to its
 * stop; a GPU's free capacity over an interval is its capacity less the largest load reserved on it at any instant of
 * the interval. Called in arrival order this is exactly online placement at each arrival (every reservation made so
 * far started no later, so the largest load over the new VM's stay is the load at its arrival); a VM placed again
 * later (its host was lost) sees the reservations of VMs that arrive after it too, so that none of them is
 * over-committed.
 */
public final class PlacementPlan {

  /** A host: its CPU in thousandths of a core, its GPUs and each GPU's memory. */
  public record Host(String name, long cpuMilli, int gpus, long gpuMemoryBytes) {
    public Host {
      if (cpuMilli <= 0 || gpus <= 0 || gpuMemoryBytes <= 0) {
        throw new IllegalArgumentException("host '" + name + "': expected CPU, GPUs and GPU memory > 0");
      }
    }
  }

  /** A VM that holds {@code request} on a GPU of a host over [start, stop) (emulated ns). */
  public record Reservation(int vm, VmRequest request, int host, int gpu, long start, long stop) {
    boolean at(long t) {
      return start <= t && t < stop;
    }

    boolean overlaps(long from, long to) {
      return start < to && from < stop;
    }
  }

  private final List<Host> hosts;
  private final boolean[] down;
  private final List<Reservation> reservations = new ArrayList<>();

  public PlacementPlan(List<Host> hosts) {
    this.hosts = List.copyOf(hosts);
    this.down = new boolean[hosts.size()];
  }

  public List<Host> hosts() {
    return hosts;
  }

  /** Every reservation made, in the order made (a lost VM's ends at the loss). */
  public List<Reservation> reservations() {
    return List.copyOf(reservations);
  }

  /**
   * Places VM {@code vm} for [start, stop) by {@code policy} among the live hosts' GPUs ({@code pinnedHost} >= 0:
   * only that host's), and reserves its request there when placed.
   */
  public PlacementDecision place(int vm, VmRequest request, long start, long stop, int pinnedHost,
      PlacementPolicy policy) {
    List<Candidate> candidates = candidates(start, stop, pinnedHost);
    PlacementDecision d = policy.place(request, candidates);
    if (d instanceof PlacementDecision.Placed p) {
      Candidate chosen = candidates.stream().filter(c -> c.host() == p.host() && c.gpu() == p.gpu()).findFirst()
          .orElseThrow(() -> new IllegalStateException("placement policy " + policy.name() + " chose host "
              + p.host() + " GPU " + p.gpu() + ", which was not a candidate"));
      if (!chosen.fits(request)) {
        throw new IllegalStateException("placement policy " + policy.name() + " chose host " + chosen.hostName()
            + " GPU " + p.gpu() + ", which has no room for vm '" + request.vm() + "'");
      }
      reservations.add(new Reservation(vm, request, p.host(), p.gpu(), start, stop));
    }
    return d;
  }

  /**
   * Host {@code host} is lost at {@code at}: it takes no VM from then on, and the reservations on it that hold at
   * {@code at} or later are cut there. Returns them as they were: the VMs the loss strikes, running or still to come.
   */
  public List<Reservation> hostLost(int host, long at) {
    down[host] = true;
    List<Reservation> struck = new ArrayList<>();
    for (int i = 0; i < reservations.size(); i++) {
      Reservation r = reservations.get(i);
      if (r.host() != host || r.stop() <= at) continue;
      struck.add(r);
      reservations.set(i, new Reservation(r.vm(), r.request(), r.host(), r.gpu(), r.start(), Math.max(r.start(), at)));
    }
    return struck;
  }

  /** Whether host {@code host} is lost. */
  public boolean isDown(int host) {
    return down[host];
  }

  /** Every live GPU with what is free on it over [start, stop), in host then GPU order. */
  public List<Candidate> candidates(long start, long stop, int pinnedHost) {
    List<Candidate> out = new ArrayList<>();
    for (int h = 0; h < hosts.size(); h++) {
      if (down[h] || (pinnedHost >= 0 && h != pinnedHost)) continue;
      Host host = hosts.get(h);
      long cpu = host.cpuMilli() - peak(h, -1, start, stop, Load.CPU);
      int hostVms = count(h, -1, start);
      for (int g = 0; g < host.gpus(); g++) {
        out.add(new Candidate(h, host.name(), g, cpu, 1000 - peak(h, g, start, stop, Load.GPU),
            host.gpuMemoryBytes() - peak(h, g, start, stop, Load.MEMORY), hostVms, count(h, g, start)));
      }
    }
    return out;
  }

  private enum Load { CPU, GPU, MEMORY }

  /** The largest load reserved on the host (gpu -1) or one GPU at any instant of [start, stop). */
  private long peak(int host, int gpu, long start, long stop, Load what) {
    List<Reservation> on = new ArrayList<>();
    for (Reservation r : reservations) {
      if (r.host() == host && (gpu < 0 || r.gpu() == gpu) && r.overlaps(start, stop)) on.add(r);
    }
    long peak = 0;
    // the load only rises where a reservation starts: at the interval's start or a later start inside it
    for (Reservation p : on) {
      long t = Math.max(start, p.start());
      long load = 0;
      for (Reservation r : on) if (r.at(t)) load += amount(r.request(), what);
      peak = Math.max(peak, load);
    }
    return peak;
  }

  private static long amount(VmRequest r, Load what) {
    return switch (what) {
      case CPU -> r.cpuMilli();
      case GPU -> r.gpuMilli();
      case MEMORY -> r.memoryBytes();
    };
  }

  private int count(int host, int gpu, long t) {
    int n = 0;
    for (Reservation r : reservations) if (r.host() == host && (gpu < 0 || r.gpu() == gpu) && r.at(t)) n++;
    return n;
  }
}
