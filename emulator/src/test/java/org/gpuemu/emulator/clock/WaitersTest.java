package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The frontier's waits come out earliest level first, each with its own waiter and token. */
class WaitersTest {

  @Test
  void randomWaits_comeOutInLevelOrder_withTheirTokens() {
    Waiters waiters = new Waiters();
    List<long[]> woken = new ArrayList<>();
    Frontier.Waiter waiter = token -> woken.add(new long[] {token});
    Random random = new Random(11);
    List<long[]> added = new ArrayList<>(); // stamp, generation, token
    for (int i = 0; i < 5_000; i++) {
      long stamp = random.nextInt(300);
      int generation = random.nextInt(4);
      waiters.add(stamp, generation, waiter, i);
      added.add(new long[] {stamp, generation, i});
    }
    added.sort((a, b) -> Frontier.compare(a[0], (int) a[1], b[0], (int) b[1]));
    long lastStamp = -1;
    int lastGeneration = -1;
    List<Long> tokens = new ArrayList<>();
    while (!waiters.isEmpty()) {
      long token = waiters.firstToken();
      long[] entry = added.stream().filter(a -> a[2] == token).findFirst().orElseThrow();
      assertTrue(Frontier.compare(lastStamp, lastGeneration, entry[0], (int) entry[1]) <= 0, "level order");
      assertTrue(waiters.firstAtOrBefore(entry[0], (int) entry[1]));
      assertFalse(entry[1] > 0 && waiters.firstAtOrBefore(entry[0], (int) entry[1] - 1), "not before its own level");
      lastStamp = entry[0];
      lastGeneration = (int) entry[1];
      waiters.firstWaiter().wake(token);
      tokens.add(token);
      waiters.removeFirst();
    }
    assertEquals(5_000, woken.size());
    assertEquals(5_000, tokens.stream().distinct().count(), "each wait once");
    assertFalse(waiters.firstAtOrBefore(Long.MAX_VALUE, Integer.MAX_VALUE), "none left");
  }
}
