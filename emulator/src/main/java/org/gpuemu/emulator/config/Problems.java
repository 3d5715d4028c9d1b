package org.gpuemu.emulator.config;

import com.typesafe.config.Config;
import java.util.ArrayList;
import java.util.List;

/**
 * The problems found in one scenario file, each a line naming the file and the key path, collected by every section's
 * reader and reported at once; with the readers of the ranges most keys share (an integer or a duration above zero).
 */
final class Problems {
  private final String file;
  private final List<String> lines = new ArrayList<>();

  Problems(String file) {
    this.file = file;
  }

  /** Records a problem at a key path. */
  void report(String path, String message) {
    lines.add(at(path, message));
  }

  /** The line a problem at a key path is reported as. */
  String at(String path, String message) {
    return file + ": " + path + ": " + message;
  }

  /** Records a problem that names its own source (a command-line option). */
  void add(String line) {
    lines.add(line);
  }

  boolean isEmpty() {
    return lines.isEmpty();
  }

  int size() {
    return lines.size();
  }

  /** Throws every problem recorded so far, if there is one. */
  void fail() throws ConfigProblems {
    if (!lines.isEmpty()) throw new ConfigProblems(lines);
  }

  /** An int > 0; when it is not, the problem is recorded and 1 returned so later checks (core placement) go on. */
  int positiveInt(Config c, String key, String fullPath) {
    long v = c.getLong(key);
    if (v <= 0) {
      report(fullPath, "expected an integer > 0, got " + v);
      return 1;
    }
    if (v > Integer.MAX_VALUE) {
      report(fullPath, "expected an integer from 1 to " + Integer.MAX_VALUE + ", got " + v);
      return 1;
    }
    return (int) v;
  }

  /** A duration > 0 at {@code scenario.<key>}. */
  long positiveNanos(Config c, String key) {
    long v = c.getDuration(key).toNanos();
    if (v <= 0) report("scenario." + key, "expected a duration > 0, got " + c.getValue(key).render());
    return v;
  }

  long nonNegativeNanos(Config c, String key, String fullPath) {
    long v = c.getDuration(key).toNanos();
    if (v < 0) report(fullPath, "expected a duration >= 0, got " + c.getValue(key).render());
    return v;
  }

  long positiveBytes(Config c, String key, String fullPath) {
    long v = c.getBytes(key);
    if (v <= 0) report(fullPath, "expected a size > 0");
    return v;
  }
}
