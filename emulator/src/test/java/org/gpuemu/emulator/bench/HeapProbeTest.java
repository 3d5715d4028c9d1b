package org.gpuemu.emulator.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The probe's per-VM reading of two class histograms (the JVM's GC.class_histogram format). */
class HeapProbeTest {
  private static final String FEW = """
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:          1000         160000  [J (java.base@17)
         2:           500          12000  java.lang.String (java.base@17)
         3:            10            400  org.example.Gone
      Total          1510         172400
      """;
  private static final String MANY = """
       num     #instances         #bytes  class name (module)
      -------------------------------------------------------
         1:          1100         176000  [J (java.base@17)
         2:           700          16800  java.lang.String (java.base@17)
         3:           100           4000  org.example.PerVm
      Total          1900         196800
      """;

  @Test
  void classesAreOrderedByBytesPerVm_andAClassGoneCountsNegative() {
    // 100 VMs more: long[] +16,000 B (+100 instances), String +4,800 B (+200), PerVm +4,000 B (+100), Gone -400 B
    List<String> lines = HeapProbe.perVm(FEW, MANY, 100);
    assertEquals("       244 B  total", lines.get(0));
    assertEquals("       160 B     1.00  [J", lines.get(1));
    assertEquals("        48 B     2.00  java.lang.String", lines.get(2));
    assertEquals("        40 B     1.00  org.example.PerVm", lines.get(3));
    assertEquals("        -4 B    -0.10  org.example.Gone", lines.get(4));
  }
}
