import { describe, expect, test, vi } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';

/**
 * The memory store stamps a put (a blob's touchedAt, which gc's grace period reads) on the
 * clock it is given. The lab makes Date.now a counter that Pi's transcript timestamps come
 * from, so a store that read it would shift those timestamps by when its writes happen to run:
 * moving blob prewrites one loop turn later changed the full preset's folded bytes
 * (4,674,594 → 4,674,591) without any decision changing. The lab's store runs on its own clock.
 */
describe('memory fold store clock', () => {
  test('a put is stamped by the given clock, and Date.now is not read', async () => {
    const store = new MemoryFoldStore({ clock: () => 1_700_000_000_000 });
    const clock = vi.spyOn(Date, 'now');
    try {
      const sha256 = await store.putBlob('bytes stamped by the store clock');
      expect(clock).not.toHaveBeenCalled();
      expect((await store.blobInfo(sha256))?.touchedAt).toBe(1_700_000_000_000);
    } finally {
      clock.mockRestore();
    }
  });

  test('without a clock a put is stamped with the current time', async () => {
    const store = new MemoryFoldStore();
    const before = Date.now();
    const sha256 = await store.putBlob('bytes stamped now');
    const touchedAt = (await store.blobInfo(sha256))?.touchedAt ?? 0;
    expect(touchedAt).toBeGreaterThanOrEqual(before);
    expect(touchedAt).toBeLessThanOrEqual(Date.now());
  });
});
