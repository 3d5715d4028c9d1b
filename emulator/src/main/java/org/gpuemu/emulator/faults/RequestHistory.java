package org.gpuemu.emulator.faults;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuemu.policies.LongLongMap;

/**
 * The run's history of guest requests, Jepsen-style: every GPU call a guest makes (launch, synchronous
 * call, Present and its tail, flush) gets an id when it is submitted, and whoever settles it records its outcome:
 * completed, or failed with a reason; a guest that sends it again records a retry. The checker reads it at the end
 * ({@link #snapshot}): per VM, a request with no outcome is lost, a second outcome for one id is a duplicate (it ran
 * twice, or was answered twice), an outcome for an id never submitted is unknown.
 *
 * <p>Checked online, so that it does not grow with the run's length (a soak runs for hours): it keeps the open ids
 * (the requests in flight), counters, and the failures (each with its time and reason, for the fault they are
 * attributed to); a settled id is known from the open set and the next id. Shared by the actors of a VM (its vCPUs
 * submit, its vGPU and guest agent settle), so every VM's record is locked while it is read or written (one lock per
 * VM, so that hosts running on threads of their own do not wait for each other); it decides nothing in the model. Ids of a
 * VM count up from 0 in the order its actors submit; the checker's figures do not depend on which id a request got.
 */
public final class RequestHistory {

  /** A history that records nothing (actor tests that build one actor alone). */
  public static final RequestHistory NONE = new RequestHistory(List.of());

  /** One failed request: its VM's index, why and when (emulated ns). */
  public record Failure(int vm, long id, String reason, long atNanos) {}

  /** A VM's history at the end: counts, and up to {@link #ANOMALIES} anomalies described. */
  public record VmHistory(String vm, long submitted, long completed, long failed, long retried, long lost,
      long duplicated, long unknown, List<String> anomalies) {
    public VmHistory {
      anomalies = List.copyOf(anomalies);
    }
  }

  /** The whole history at the end: every VM's, and every failure in the order recorded. */
  public record Snapshot(List<VmHistory> vms, List<Failure> failures) {
    public static final Snapshot EMPTY = new Snapshot(List.of(), List.of());

    public Snapshot {
      vms = List.copyOf(vms);
      failures = List.copyOf(failures);
    }

    public long duplicated() {
      return vms.stream().mapToLong(v -> v.duplicated() + v.unknown()).sum();
    }

    public long lost() {
      return vms.stream().mapToLong(VmHistory::lost).sum();
    }

    /** The counts over every VM; {@code open}: still open now (at the end of a run, lost). */
    public Totals totals() {
      Map<String, Long> byVm = new java.util.LinkedHashMap<>();
      vms.forEach(v -> byVm.put(v.vm(), v.completed()));
      return new Totals(vms.stream().mapToLong(VmHistory::submitted).sum(),
          vms.stream().mapToLong(VmHistory::completed).sum(), vms.stream().mapToLong(VmHistory::failed).sum(), lost(),
          byVm);
    }

    public boolean isEmpty() {
      return vms.isEmpty();
    }
  }

  /** Anomalies described per VM at most (the counts are complete). */
  static final int ANOMALIES = 10;

  private static final class Vm {
    final String name;
    /** The open ids (submitted, not yet settled), each with the time it was submitted at; unboxed (every request). */
    final LongLongMap open = new LongLongMap();
    final List<String> anomalies = new ArrayList<>();
    long next;
    long completed;
    long failed;
    long retried;
    long duplicated;
    long unknown;

    Vm(String name) {
      this.name = name;
    }
  }

  private final List<Vm> vms = new ArrayList<>();
  private final List<Failure> failures = new ArrayList<>();

  public RequestHistory(List<String> vmNames) {
    for (String name : vmNames) vms.add(new Vm(name));
  }

  /** A request of VM {@code vm} submitted at {@code atNanos}: its id (-1 when this history records nothing). */
  public long submitted(int vm, long atNanos) {
    if (vms.isEmpty()) return -1;
    Vm v = vms.get(vm);
    synchronized (v) {
      long id = v.next++;
      v.open.put(id, atNanos);
      return id;
    }
  }

  /** Request {@code id} of VM {@code vm} completed at {@code atNanos}. */
  public void completed(int vm, long id, long atNanos) {
    if (id < 0 || vms.isEmpty()) return;
    Vm v = vms.get(vm);
    synchronized (v) {
      if (settle(v, id, "completed", atNanos)) v.completed++;
    }
  }

  /** Request {@code id} of VM {@code vm} failed at {@code atNanos} for {@code reason}. */
  public void failed(int vm, long id, String reason, long atNanos) {
    if (id < 0 || vms.isEmpty()) return;
    Vm v = vms.get(vm);
    synchronized (v) {
      if (!settle(v, id, "failed (" + reason + ")", atNanos)) return;
      v.failed++;
      synchronized (failures) {
        failures.add(new Failure(vm, id, reason, atNanos));
      }
    }
  }

  /** The guest sent request {@code id} of VM {@code vm} again at {@code atNanos} (it timed out waiting). */
  public void retried(int vm, long id, long atNanos) {
    if (id < 0 || vms.isEmpty()) return;
    Vm v = vms.get(vm);
    synchronized (v) {
      v.retried++;
    }
  }

  /** Whether request {@code id} of VM {@code vm} is still open (submitted, not yet settled). */
  public boolean open(int vm, long id) {
    if (id < 0 || vms.isEmpty()) return false;
    Vm v = vms.get(vm);
    synchronized (v) {
      return v.open.containsKey(id);
    }
  }

  /** Closes {@code id}; false, with the anomaly counted, when it was not open. */
  private static boolean settle(Vm v, long id, String outcome, long atNanos) {
    if (v.open.remove(id)) return true;
    if (id < v.next) {
      v.duplicated++;
      anomaly(v, "request " + id + " " + outcome + " at " + atNanos / 1e9 + " s, after it was settled already");
    } else {
      v.unknown++;
      anomaly(v, "request " + id + " " + outcome + " at " + atNanos / 1e9 + " s, never submitted");
    }
    return false;
  }

  private static void anomaly(Vm v, String what) {
    if (v.anomalies.size() < ANOMALIES) v.anomalies.add(what);
  }

  /** Every VM's counts (a soak's sample): what the guests submitted, with what their channel failed. */
  public record Totals(long submitted, long completed, long failed, long open, Map<String, Long> completedByVm) {}

  /** The history now; at the end of a run, what is still open is lost. */
  public Snapshot snapshot() {
    List<VmHistory> out = new ArrayList<>();
    for (Vm v : vms) {
      synchronized (v) {
        List<String> anomalies = new ArrayList<>(v.anomalies);
        for (long id : v.open.sortedKeys()) {
          if (anomalies.size() >= ANOMALIES) break;
          anomalies.add("request " + id + " submitted at " + v.open.get(id, 0) / 1e9 + " s has no outcome");
        }
        out.add(new VmHistory(v.name, v.next, v.completed, v.failed, v.retried, v.open.size(), v.duplicated,
            v.unknown, anomalies));
      }
    }
    synchronized (failures) {
      return new Snapshot(out, failures);
    }
  }
}
