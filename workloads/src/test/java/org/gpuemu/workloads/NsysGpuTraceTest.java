package org.gpuemu.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading `nsys stats --report cuda_gpu_trace --format csv`: good rows, and every kind of bad row with its line. */
class NsysGpuTraceTest {
  /** The header of nsys 2024+ (GreenCtx, Throughput (MB/s)). */
  static final String HEADER = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,StcSMem (MB),"
      + "DymSMem (MB),Bytes (MB),Throughput (MB/s),SrcMemKd,DstMemKd,Device,Ctx,GreenCtx,Strm,Name";
  /** The older header (no GreenCtx, Throughput (MBps)). */
  static final String OLD_HEADER = "Start (ns),Duration (ns),CorrId,GrdX,GrdY,GrdZ,BlkX,BlkY,BlkZ,Reg/Trd,"
      + "StcSMem (MB),DymSMem (MB),Bytes (MB),Throughput (MBps),SrcMemKd,DstMemKd,Device,Ctx,Strm,Name";

  static String kernel(long start, long duration, int gx, int gy, int gz, int stream, String name) {
    return start + "," + duration + ",1," + gx + "," + gy + "," + gz + ",256,1,1,32,0.000,0.000,,,,,GPU (0),1,,"
        + stream + "," + name;
  }

  static String copy(long start, long duration, int stream, String name) {
    return start + "," + duration + ",2,,,,,,,,,,1.000,100.000,Pageable,Device,GPU (0),1,," + stream + "," + name;
  }

  private static List<String> file(String... rows) {
    List<String> lines = new ArrayList<>(List.of(HEADER));
    lines.addAll(List.of(rows));
    return lines;
  }

  /** The one problem of a bad file. */
  private static String problem(List<String> lines) {
    TraceException e = assertThrows(TraceException.class, () -> NsysGpuTrace.parse(lines, "t.csv"));
    assertEquals(1, e.problems().size(), e.problems().toString());
    return e.problems().get(0);
  }

  @Test
  void goodRows_giveKernelsWithTheirGrid_andCopiesByName() throws TraceException {
    List<NsysGpuTrace.Op> ops = NsysGpuTrace.parse(file(
        copy(1_000, 100, 7, "[CUDA memcpy HtoD]"),
        kernel(1_200, 500, 4, 2, 3, 7, "\"void k<float, 2>(float*, int)\""),
        copy(1_800, 50, 7, "[CUDA memcpy Device-to-Host]"),
        copy(1_900, 10, 7, "[CUDA memset]")), "t.csv");
    assertEquals(4, ops.size());
    assertEquals(NsysGpuTrace.Kind.COPY_HOST_TO_DEVICE, ops.get(0).kind());
    assertEquals(1, ops.get(0).blocks());
    NsysGpuTrace.Op k = ops.get(1);
    assertEquals(NsysGpuTrace.Kind.KERNEL, k.kind());
    assertEquals("void k<float, 2>(float*, int)", k.name(), "a quoted name keeps its commas");
    assertEquals(24, k.blocks(), "GrdX x GrdY x GrdZ = 4 x 2 x 3");
    assertEquals(1_200, k.startNanos());
    assertEquals(500, k.durationNanos());
    assertEquals(3, k.line(), "line 1 is the header");
    assertEquals(NsysGpuTrace.Kind.COPY_DEVICE_TO_HOST, ops.get(2).kind());
    assertEquals(NsysGpuTrace.Kind.MEMSET, ops.get(3).kind());
  }

  @Test
  void preambleBeforeTheHeader_isSkipped_andTheOlderLayoutIsRead() throws TraceException {
    List<String> lines = List.of("", "NOTICE: Existing SQLite export found: r.sqlite",
        "Processing [r.sqlite] with [cuda_gpu_trace.py]... ", OLD_HEADER,
        "100,50,1,1,1,1,32,1,1,16,0.000,0.000,,,,,GPU (0),1,7,k");
    List<NsysGpuTrace.Op> ops = NsysGpuTrace.parse(lines, "t.csv");
    assertEquals(1, ops.size());
    assertEquals(7, ops.get(0).stream());
    assertEquals(5, ops.get(0).line());
  }

  @Test
  void timeUnitOfTheHeader_isHonoured() throws TraceException {
    List<String> lines = List.of(HEADER.replace("(ns)", "(us)"), kernel(2, 1, 1, 1, 1, 7, "k").replace("2,1,1,", "2.5,1.25,1,"));
    NsysGpuTrace.Op op = NsysGpuTrace.parse(lines, "t.csv").get(0);
    assertEquals(2_500, op.startNanos());
    assertEquals(1_250, op.durationNanos());
  }

  @Test
  void noHeader_isAnErrorAtLine1() {
    assertEquals("t.csv:1: expected the header of `nsys stats --report cuda_gpu_trace --format csv` (Start (ns),"
        + "Duration (ns),...,GrdX,GrdY,GrdZ,...,Strm,Name), found none", problem(List.of("a,b", "1,2")));
  }

  @Test
  void headerWithoutAStreamColumn_isAnErrorNamingIt() {
    String p = problem(List.of("x", HEADER.replace(",Strm,", ",Stream,")));
    assertTrue(p.startsWith("t.csv:2: expected the cuda_gpu_trace columns [Strm]"), p);
  }

  @Test
  void rowWithTooFewFields_isAnErrorWithItsLine() {
    assertEquals("t.csv:3: expected 21 comma-separated fields as in the header, got 3",
        problem(file(kernel(0, 10, 1, 1, 1, 7, "a"), "1,2,3")));
  }

  @Test
  void unclosedQuote_isAnErrorWithItsLine() {
    assertEquals("t.csv:2: expected a closing double quote", problem(file(kernel(0, 10, 1, 1, 1, 7, "\"a"))));
  }

  @Test
  void startNotANumber_isAnError() {
    assertEquals("t.csv:2: expected Start a number, got 'soon'",
        problem(file(kernel(0, 10, 1, 1, 1, 7, "a").replaceFirst("^0", "soon"))));
  }

  @Test
  void zeroDuration_isAnError() {
    assertEquals("t.csv:2: expected a Duration > 0 ns, got 0", problem(file(kernel(5, 0, 1, 1, 1, 7, "a"))));
  }

  @Test
  void kernelWithoutGrid_isAnError_butACopyNeedsNone() {
    assertEquals("t.csv:2: expected GrdY a whole number > 0 for a kernel row, got ''",
        problem(file(kernel(5, 10, 1, 1, 1, 7, "a").replace(",1,1,1,256,", ",1,,1,256,"))));
  }

  @Test
  void negativeStream_isAnError() {
    assertEquals("t.csv:2: expected Strm a stream number >= 0, got '-3'", problem(file(kernel(5, 10, 1, 1, 1, -3, "a"))));
  }

  @Test
  void emptyName_isAnError() {
    assertEquals("t.csv:2: expected a Name (a kernel or [CUDA memcpy ...]), got an empty field",
        problem(file(kernel(5, 10, 1, 1, 1, 7, ""))));
  }

  @Test
  void rowsOutOfStartOrder_areAnError() {
    assertEquals("t.csv:3: expected rows in start order (as nsys writes them): starts at 50 ns, before line 2's 100 ns",
        problem(file(kernel(100, 10, 1, 1, 1, 7, "a"), kernel(50, 10, 1, 1, 1, 8, "b"))));
  }

  @Test
  void overlapWithinOneStream_isAnError_butAcrossStreamsIsNot() throws TraceException {
    assertEquals("t.csv:3: expected stream 7's operations one after another: starts at 105 ns, before line 2 on the "
        + "same stream ends at 110 ns",
        problem(file(kernel(100, 10, 1, 1, 1, 7, "a"), kernel(105, 10, 1, 1, 1, 7, "b"))));
    assertEquals(2, NsysGpuTrace.parse(file(kernel(100, 10, 1, 1, 1, 7, "a"), kernel(105, 10, 1, 1, 1, 8, "b")),
        "t.csv").size());
  }

  @Test
  void headerAlone_isAnError() {
    assertEquals("t.csv:1: expected at least one row after the header", problem(file()));
  }

  @Test
  void everyBadRowIsReported_theFirstTenInFull() {
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < 12; i++) rows.add("x");
    TraceException e = assertThrows(TraceException.class, () -> NsysGpuTrace.parse(file(rows.toArray(String[]::new)),
        "t.csv"));
    assertEquals(11, e.problems().size());
    assertTrue(e.problems().get(9).startsWith("t.csv:11: "), e.problems().get(9));
    assertEquals("t.csv: 2 more bad rows not shown", e.problems().get(10));
  }
}
