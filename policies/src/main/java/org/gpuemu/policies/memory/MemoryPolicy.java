package org.gpuemu.policies.memory;

import java.util.List;

/** A GPU memory policy: events in, decisions out. Driven by the GpuMemory actor. */
public interface MemoryPolicy {
  String name();

  /** A VM joins with its configured cap in bytes. */
  void addVm(int vm, String name, long capBytes);

  /** A guest asks for {@code bytes} more. */
  MemoryDecision allocate(int vm, long bytes, long now);

  /** A guest frees {@code bytes} it holds (frees more than held are clamped and reported by checkInvariants). */
  void free(int vm, long bytes, long now);

  /** Bytes the VM holds now. */
  long allocated(int vm);

  List<String> checkInvariants();
}
