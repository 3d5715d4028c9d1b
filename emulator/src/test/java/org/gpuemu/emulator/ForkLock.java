package org.gpuemu.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Keeps a {@link RunsAlone} test from sharing the machine with the other Surefire fork (emulator/pom.xml runs two):
 * every test class holds a shared lock on one file of the build while it runs, from before its first test to after
 * its last; a {@code @RunsAlone} test (or class) holds it exclusively, so it starts once the other fork's class has
 * ended and the other fork starts nothing new until it has ended. Taking the lock, shared or exclusive, first passes
 * a gate (a second file locked exclusively for the moment), so that a fork waiting to run alone is not passed over
 * for ever by the other fork taking its shared lock again class after class. File locks are the operating system's:
 * they hold between the forks' JVMs and vanish with a JVM that dies.
 *
 * <p>Registered for every test by JUnit's extension auto-detection (src/test/resources/junit-platform.properties and
 * META-INF/services); does nothing when the build names no lock file ({@code gpuemu.test.fork-lock}), as when a test is
 * run from an IDE.
 */
public final class ForkLock implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {
  private static final String FILE = System.getProperty("gpuemu.test.fork-lock", "");

  static {
    // the build points each fork's java.io.tmpdir at a folder of its own; make it here, before any test asks for a
    // temporary file, so that any fork number (and an IDE that copies the build's argLine) finds it
    try {
      java.nio.file.Files.createDirectories(Path.of(System.getProperty("java.io.tmpdir")));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
  private static FileChannel lock;
  private static FileChannel gate;
  /** The lock this JVM holds now (one test class runs at a time in a fork), null when none. */
  private static FileLock held;

  @Override public void beforeAll(ExtensionContext context) {
    if (isTopLevel(context)) take(context.getRequiredTestClass().isAnnotationPresent(RunsAlone.class));
  }

  @Override public void afterAll(ExtensionContext context) {
    if (isTopLevel(context)) release();
  }

  @Override public void beforeEach(ExtensionContext context) {
    if (alone(context)) {
      release();
      take(true);
    }
  }

  @Override public void afterEach(ExtensionContext context) {
    if (alone(context)) {
      release();
      take(false);
    }
  }

  /** A {@code @RunsAlone} method of a class that does not run alone as a whole. */
  private static boolean alone(ExtensionContext context) {
    return context.getRequiredTestMethod().isAnnotationPresent(RunsAlone.class)
        && !context.getRequiredTestClass().isAnnotationPresent(RunsAlone.class);
  }

  /** A nested class runs inside its outer class, which holds the lock already. */
  private static boolean isTopLevel(ExtensionContext context) {
    return context.getRequiredTestClass().getEnclosingClass() == null;
  }

  private static synchronized void take(boolean exclusive) {
    if (FILE.isEmpty()) return;
    try {
      if (lock == null) {
        lock = FileChannel.open(Path.of(FILE), StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
        gate = FileChannel.open(Path.of(FILE + ".gate"), StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE);
      }
      try (FileLock passing = gate.lock()) {
        held = lock.lock(0, Long.MAX_VALUE, !exclusive);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("the forks' lock " + FILE, e);
    }
  }

  private static synchronized void release() {
    if (held == null) return;
    try {
      held.release();
    } catch (IOException e) {
      throw new UncheckedIOException("the forks' lock " + FILE, e);
    } finally {
      held = null;
    }
  }
}
