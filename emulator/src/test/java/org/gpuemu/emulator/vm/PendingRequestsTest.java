package org.gpuemu.emulator.vm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.gpuemu.emulator.vm.VgpuRequests.Pending;
import org.junit.jupiter.api.Test;

/** A vGPU's pending requests against a TreeMap, the map and sorted set it replaced, on the same operations. */
class PendingRequestsTest {

  private static Pending pending(long id) {
    return new Pending().fill(null, null, (int) id, null, id % 3 == 0, 0, id);
  }

  @Test
  void randomAddsAndRemoves_findAndOrderAsATreeMap() {
    PendingRequests requests = new PendingRequests();
    TreeMap<Long, Pending> reference = new TreeMap<>();
    Random random = new Random(3);
    long next = 5L << 40; // a vGPU's ids: its number in the high bits, counting up
    for (int step = 0; step < 100_000; step++) {
      // mostly in order, sometimes out of it; the number held drifts up and down so that the ring wraps and grows
      if (reference.isEmpty() || random.nextInt(100) < 50 + (step / 10_000 % 2 == 0 ? 3 : -3)) {
        Pending p = pending(next);
        requests.add(next, p);
        reference.put(next++, p);
      } else {
        long id = random.nextInt(4) == 0 ? reference.lastKey() - random.nextInt(reference.size())
            : reference.firstKey();
        assertSame(reference.remove(id), requests.remove(id), "remove " + id);
      }
      long probe = next - 1 - random.nextInt(40);
      assertSame(reference.get(probe), requests.get(probe), "get " + probe);
      assertEquals(reference.containsKey(probe), requests.contains(probe));
      assertEquals(reference.size(), requests.size());
      assertEquals(reference.isEmpty() ? Long.MAX_VALUE : reference.firstKey(), requests.oldestId());
      assertEquals(reference.isEmpty() ? Long.MIN_VALUE : reference.lastKey(), requests.newestId());
    }
    int i = 0;
    for (Map.Entry<Long, Pending> e : reference.entrySet()) {
      assertEquals(e.getKey(), requests.idAt(i));
      assertSame(e.getValue(), requests.at(i++));
    }
  }

  @Test
  void anIdNotNewerThanTheNewest_isRefused() {
    PendingRequests requests = new PendingRequests();
    requests.add(7, pending(7));
    assertThrows(IllegalArgumentException.class, () -> requests.add(7, pending(7)));
    assertEquals(null, requests.remove(6), "never held");
    assertSame(null, requests.get(8));
  }
}
