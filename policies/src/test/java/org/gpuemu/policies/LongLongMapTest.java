package org.gpuemu.policies;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The primitive map against a HashMap, the structure it replaces, on the same operations. */
class LongLongMapTest {

  @Test
  void randomPutsAndRemoves_answerAsAHashMap() {
    LongLongMap map = new LongLongMap();
    Map<Long, Long> reference = new HashMap<>();
    Random random = new Random(11);
    for (int step = 0; step < 200_000; step++) {
      // request ids as the model makes them (a vGPU's number in the high bits, counting up), negative ones too, and
      // a window that moves on and grows, so that runs collide, wrap around the table and the table grows
      long key = (random.nextInt(4) - 1L) << 40 | (step / 20 + random.nextInt(300 + step / 1_000));
      long value = random.nextLong();
      switch (random.nextInt(3)) {
        case 0 -> assertEquals(reference.put(key, value) == null, map.put(key, value), "put " + key);
        case 1 -> assertEquals(reference.remove(key) != null, map.remove(key), "remove " + key);
        default -> {
          Long old = reference.remove(key);
          assertEquals(old == null ? -7 : old, map.remove(key, -7), "remove " + key + " for its value");
        }
      }
      long probe = key + random.nextInt(5) - 2;
      assertEquals(reference.containsKey(probe), map.containsKey(probe), "contains " + probe);
      assertEquals(reference.getOrDefault(probe, -1L), map.get(probe, -1), "get " + probe);
      assertEquals(reference.size(), map.size());
    }
    assertArrayEquals(reference.keySet().stream().mapToLong(Long::longValue).sorted().toArray(), map.sortedKeys());
  }

  @Test
  void theFreeSlotsMarker_isNoKey() {
    LongLongMap map = new LongLongMap();
    assertFalse(map.containsKey(Long.MIN_VALUE), "an empty map holds nothing, its marker neither");
    assertEquals(5, map.get(Long.MIN_VALUE, 5));
    assertFalse(map.remove(Long.MIN_VALUE));
    assertThrows(IllegalArgumentException.class, () -> map.put(Long.MIN_VALUE, 1));
    assertTrue(map.put(0, 1));
    assertFalse(map.put(0, 2), "a second put replaces the value");
    assertEquals(2, map.get(0, -1));
    assertEquals(1, map.size());
    assertFalse(map.isEmpty());
  }
}
