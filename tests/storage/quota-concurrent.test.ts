import { describe, expect, test } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { QuotaFoldStore } from '../../application/retention/quota-fold-store.ts';

/**
 * A commit puts its blobs side by side (core/commit/apply/store-writes.ts), so the size cap must count
 * blobs still being written: two puts in flight together may not both squeeze under it.
 */
describe('quota store: blobs put side by side', () => {
  test('two puts that fit the session cap one at a time but not together: exactly one is refused, and only its bytes are given back', async () => {
    const store = new QuotaFoldStore(new MemoryFoldStore(), 'session-quota', { sessionCapBytes: 100 });
    const outcomes = await Promise.allSettled([store.putBlob('a'.repeat(60)), store.putBlob('b'.repeat(60))]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    const refused = outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult;
    expect(String(refused.reason)).toMatch(/STORE.QUOTA/);
    // The refused put reserved nothing: 40 bytes are still free.
    await expect(store.putBlob('c'.repeat(40))).resolves.toMatch(/^[0-9a-f]{64}$/);
    await expect(store.putBlob('d')).rejects.toThrow(/STORE.QUOTA/);
  });
});
