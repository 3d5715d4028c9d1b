package org.gpuemu.emulator.report.html;

/** A folder the report cannot be built from; the message is one line naming the file and what is wrong. */
public final class ReportException extends Exception {
  private static final long serialVersionUID = 1L;

  public ReportException(String message) {
    super(message);
  }
}
