package org.gpuemu.emulator.config;

import java.util.List;

/** Bad input: every problem found, one line each naming the file, the key path and what is expected. */
public final class ConfigProblems extends Exception {
  private final List<String> problems;

  public ConfigProblems(List<String> problems) {
    super(String.join(System.lineSeparator(), problems));
    this.problems = List.copyOf(problems);
  }

  public static ConfigProblems of(String problem) {
    return new ConfigProblems(List.of(problem));
  }

  public List<String> problems() {
    return problems;
  }
}
