package org.gpuemu.emulator;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A test (or every test of a class) whose assertion reads the pace of the wall clock — a run at time scale 1 that must
 * stay faithful, a lag or real-time factor bound — runs while no test of the other Surefire fork runs: the machine's
 * two cores are then this test's alone, as on an idle machine with one test JVM. {@link ForkLock} holds to it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface RunsAlone {
}
