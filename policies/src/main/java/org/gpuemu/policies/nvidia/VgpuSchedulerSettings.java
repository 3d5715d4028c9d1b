package org.gpuemu.policies.nvidia;

/**
 * The time-sliced vGPU scheduler's settings as the {@code RmPVMRL} registry key carries them, with the documented
 * ranges, defaults and clamping. Source: NVIDIA AI Enterprise User Guide v5.0, §7 "Changing Scheduling Behavior for
 * Time-Sliced vGPUs": §7.1 (policies, strict round robin, scheduling frequency, averaging factor), §7.3 "RmPVMRL
 * Registry Key" (the DWORD {@code 0xAAFFFTTS}: S the scheduler, TT the time slice, FFF the frequency, AA the
 * averaging factor) and its Table 1 (defaults by vGPU density). NVML's {@code nvmlVgpuSchedulerSetParams_t} carries
 * the same three numbers ({@code timeslice} in ns, {@code avgFactor}, {@code frequency}; "0 or unspecified uses
 * default"), NVML API Reference Guide vR590.
 *
 * <p>The layout of the DWORD is read from the guide's examples ({@code 0x01} equal share, {@code 0x11} fixed share,
 * {@code 0x00030003} equal share without strict round robin and a 3 ms slice, {@code 0x00180011} fixed share and
 * 24 ms, {@code 0x3c3c0001} equal share, averaging factor 60 and 960 Hz): a low nibble of 0 is best effort, any other
 * (the examples use 1 and 3) a share scheduler, fixed share when the next nibble is 1; a TT in bits 16-23 with bits
 * 8-15 and 24-31 zero selects the scheduler without strict round robin, and otherwise bits 12-23 hold FFF and bits
 * 24-31 AA. The guide's table of the layout did not survive
 * in the copy we read, so this reading is ours, checked against every example of the guide
 * ({@code VgpuSchedulerSettingsTest}). Nothing in the guide says how a DWORD with both a TT and an FFF is read.
 *
 * @param scheduler which scheduler the key selects
 * @param strictRoundRobin whether the equal and fixed share schedulers enforce a strict round robin (the default since
 *     release 15.0; §7.1: before it, they scheduled the vGPU with the least time in the scheduled state)
 * @param averagingFactor AA, 1-60 (0 in the key: the default {@value #DEFAULT_AVERAGING_FACTOR}; above 60: 60)
 * @param frequencyHz FFF, 63-960 Hz, 0 = the density default (480 Hz for at most 8 vGPUs per GPU, else 960 Hz)
 * @param timeSliceMs TT, 1-30 ms, 0 = the density default (2 ms for at most 8 vGPUs per GPU, else 1 ms)
 */
public record VgpuSchedulerSettings(Scheduler scheduler, boolean strictRoundRobin, int averagingFactor,
    int frequencyHz, int timeSliceMs) {
  /** §7.3: "If AA is 0x00, the default value of 33 is used." */
  public static final int DEFAULT_AVERAGING_FACTOR = 33;
  /** §7.3: AA in 0x01-0x3C. */
  public static final int MIN_AVERAGING_FACTOR = 1;
  public static final int MAX_AVERAGING_FACTOR = 60;
  /** §7.3: FFF in 0x3F-0x3C0 (63-960 Hz). */
  public static final int MIN_FREQUENCY_HZ = 63;
  public static final int MAX_FREQUENCY_HZ = 960;
  /** §7.3: TT in 0x01-0x1E (1-30 ms). */
  public static final int MIN_TIME_SLICE_MS = 1;
  public static final int MAX_TIME_SLICE_MS = 30;

  /** The three time-sliced schedulers (§7). */
  public enum Scheduler { BEST_EFFORT, EQUAL_SHARE, FIXED_SHARE }

  /**
   * Decodes an {@code RmPVMRL} value, clamping as §7.3 says: AA 0 is 33 and above 60 is 60; FFF 0 is the density
   * default, between 1 and 62 is 63, above 960 is 960; TT 0 is the density default and above 30 is 30.
   */
  public static VgpuSchedulerSettings decode(long dword) {
    int s = (int) (dword & 0xF);
    int fixed = (int) ((dword >> 4) & 0xF);
    Scheduler scheduler = s == 0 ? Scheduler.BEST_EFFORT : fixed == 1 ? Scheduler.FIXED_SHARE : Scheduler.EQUAL_SHARE;
    int middle = (int) ((dword >> 8) & 0xFF);
    int high = (int) ((dword >> 24) & 0xFF);
    boolean withTimeSlice = middle == 0 && high == 0 && ((dword >> 16) & 0xFF) != 0;
    if (withTimeSlice) {
      int tt = (int) ((dword >> 16) & 0xFF);
      return new VgpuSchedulerSettings(scheduler, false, DEFAULT_AVERAGING_FACTOR, 0, Math.min(tt, MAX_TIME_SLICE_MS));
    }
    int fff = (int) ((dword >> 12) & 0xFFF);
    int frequency = fff == 0 ? 0 : Math.max(MIN_FREQUENCY_HZ, Math.min(MAX_FREQUENCY_HZ, fff));
    int aa = high == 0 ? DEFAULT_AVERAGING_FACTOR : Math.min(high, MAX_AVERAGING_FACTOR);
    return new VgpuSchedulerSettings(scheduler, true, aa, frequency, 0);
  }

  /** The scheduling frequency in force for vGPUs of {@code type}: FFF, or Table 1's default for its density. */
  public int effectiveFrequencyHz(VgpuType type) {
    return frequencyHz != 0 ? frequencyHz : defaultFrequencyHz(type);
  }

  /** The time slice in force without strict round robin: TT, or Table 1's default for its density. */
  public int effectiveTimeSliceMs(VgpuType type) {
    return timeSliceMs != 0 ? timeSliceMs : defaultTimeSliceMs(type);
  }

  /** §7.3 Table 1: 480 Hz for at most 8 vGPUs per GPU, 960 Hz for more. */
  public static int defaultFrequencyHz(VgpuType type) {
    return type.highDensity() ? 960 : 480;
  }

  /** §7.3 Table 1: 2 ms for at most 8 vGPUs per GPU, 1 ms for more. */
  public static int defaultTimeSliceMs(VgpuType type) {
    return type.highDensity() ? 1 : 2;
  }

  /**
   * The time slice of one strict round-robin turn, in nanoseconds: "The time slice is the inverse of scheduling
   * frequency. For example, a frequency of 0x3F (63 Hz) yields a time slice of 1/63 s, or 15.873 ms" (§7.3).
   */
  public static long sliceNanosOfFrequency(int frequencyHz) {
    return Math.round(1e9 / frequencyHz);
  }
}
