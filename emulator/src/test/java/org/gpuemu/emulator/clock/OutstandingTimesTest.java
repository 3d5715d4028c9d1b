package org.gpuemu.emulator.clock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The frontier's table of model times against a TreeMap, the structure it replaced, on the same operations. */
class OutstandingTimesTest {

  @Test
  void randomAddsAndRemoves_findAndOrderAsATreeMap() {
    OutstandingTimes times = new OutstandingTimes();
    TreeMap<Long, OutstandingTimes.Stamp> reference = new TreeMap<>();
    Random random = new Random(7);
    for (int step = 0; step < 200_000; step++) {
      // few distinct times (collisions, reuse) and a growing table (the time moves on, as a run's does)
      long stamp = step / 50 + random.nextInt(400) * 7L;
      OutstandingTimes.Stamp found = times.get(stamp);
      assertSame(reference.get(stamp), found, "the entry of " + stamp);
      if (found == null) {
        reference.put(stamp, times.create(stamp));
      } else if (random.nextBoolean()) {
        times.remove(found);
        reference.remove(stamp);
      }
      assertEquals(reference.size(), times.size());
      OutstandingTimes.Stamp first = times.first();
      if (reference.isEmpty()) {
        assertNull(first);
      } else {
        assertSame(reference.firstEntry().getValue(), first, "the earliest at step " + step);
      }
    }
  }

  @Test
  void counts_byGeneration_earliestMovesAsEventsAreDone() {
    OutstandingTimes times = new OutstandingTimes();
    OutstandingTimes.Stamp s = times.create(10);
    s.add(2);
    s.add(0);
    s.add(0);
    assertEquals(0, s.first);
    assertEquals(false, s.done(0), "one event of generation 0 is left");
    assertEquals(true, s.done(0));
    assertEquals(2, s.first);
    assertEquals(true, s.done(2));
    assertEquals(0, s.total);
    times.remove(s);
    OutstandingTimes.Stamp again = times.create(20);
    assertSame(s, again, "a removed entry is reused");
    assertEquals(Integer.MAX_VALUE, again.first, "with nothing counted");
    assertEquals(20, again.stamp);
  }
}
