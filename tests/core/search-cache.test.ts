import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { SearchHit } from '../../core/actions/search-action.ts';
import { FoldError } from '../../core/fold-error.ts';
import { searchTextsOf, VerifiedTextCache } from '../../core/search/verified-text-cache.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { corruptingStore } from '../support/corrupting-store.ts';
import { driveSession } from '../support/drive-session.ts';

/** A memory store that counts blob reads (each one hashes the blob). */
class CountingStore extends MemoryFoldStore {
  blobReads = 0;

  override async getBlob(sha256: string): Promise<Uint8Array> {
    this.blobReads += 1;
    return super.getBlob(sha256);
  }
}

async function refusal(run: () => Promise<unknown>): Promise<FoldError> {
  const caught = await run().then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!FoldError.isInstance(caught)) throw new Error(`expected a FoldError, got ${String(caught)}`);
  return caught;
}

describe('search answers from bytes verified once in this process (docs/behaviour.md B4, I2)', () => {
  it('a repeated search gives the same answer without reading the store again', async () => {
    const store = new CountingStore();
    const { runtime } = await driveSession({ seed: 8, steps: 70, store });
    expect(runtime.view.lattice.size).toBeGreaterThan(3);
    const search = { action: 'search', pattern: '"role":"toolResult"', limit: 50 };
    const first = await runtime.act(search);
    expect((first.data as { hits: SearchHit[] }).hits.length).toBe(50);
    // A pattern found nowhere scans every folded entry: each blob is read and verified once.
    const readsBefore = store.blobReads;
    const nowhere = await runtime.act({ action: 'search', pattern: 'text found nowhere' });
    expect(nowhere.text).toContain('no matches');
    const afterFullScan = store.blobReads;
    expect(afterFullScan).toBeGreaterThan(readsBefore);
    const second = await runtime.act(search);
    const regex = await runtime.act({ action: 'search', pattern: 'module_\\d+\\.c', regex: true, limit: 50 });
    const again = await runtime.act({ action: 'search', pattern: 'text found nowhere' });
    expect(second.text).toBe(first.text);
    expect(second.data).toEqual(first.data);
    expect((regex.data as { hits: SearchHit[] }).hits.length).toBeGreaterThan(0);
    expect(again.data).toEqual(nowhere.data);
    expect(store.blobReads).toBe(afterFullScan);
  });

  it('a blob damaged after its search is refused by the next peek, by name; search keeps answering from the verified text', async () => {
    const { store, corrupt } = corruptingStore((bytes) => (bytes[bytes.length - 2] = bytes[bytes.length - 2]! ^ 1));
    const { runtime } = await driveSession({ seed: 4, steps: 60, store });
    const search = { action: 'search', pattern: 'socket', limit: 5 };
    const before = await runtime.act(search);
    const hit = (before.data as { hits: SearchHit[] }).hits[0]!;
    expect(hit).toBeDefined();
    corrupt();
    const after = await runtime.act(search);
    expect(after.text).toBe(before.text);
    const error = await refusal(() =>
      runtime.act({ action: 'peek', id: hit.foldId, offset: hit.peekOffset, bytes: 1024 }),
    );
    expect(error.code).toBe('STORE.HASH_MISMATCH');
  });

  it('a blob damaged before any search is refused by the search (nothing unverified enters the cache)', async () => {
    const { store, corrupt } = corruptingStore((bytes) => (bytes[0] = bytes[0]! ^ 1));
    const { runtime } = await driveSession({ seed: 4, steps: 60, store });
    corrupt();
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await refusal(() => runtime.act({ action: 'search', pattern: 'socket' }));
      expect(error.code).toBe('STORE.HASH_MISMATCH');
    }
    expect(searchTextsOf(runtime.view.foldStore).size).toBe(0);
  });
});

describe('VerifiedTextCache', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('keeps the most recently used texts within its bound, oldest out first', () => {
    const cache = new VerifiedTextCache(10);
    for (const text of ['aaaa', 'bbbb']) cache.remember(sha256Hex(text), bytes(text));
    expect(cache.get(sha256Hex('aaaa'))?.text).toBe('aaaa');
    cache.remember(sha256Hex('cccc'), bytes('cccc'));
    expect(cache.units).toBeLessThanOrEqual(10);
    expect(cache.get(sha256Hex('bbbb'))).toBeUndefined();
    expect(cache.get(sha256Hex('aaaa'))?.text).toBe('aaaa');
    expect(cache.get(sha256Hex('cccc'))?.byteLength).toBe(4);
  });

  it('keeps only text that re-encodes to exactly its bytes', () => {
    const cache = new VerifiedTextCache(100);
    const invalid = Uint8Array.from([0x7b, 0xff, 0x7d]);
    expect(cache.remember('x'.repeat(64), invalid)).toBeUndefined();
    const withBom = Uint8Array.from([0xef, 0xbb, 0xbf, 0x41]);
    const kept = cache.remember('y'.repeat(64), withBom)!;
    expect(Buffer.from(kept.text, 'utf8')).toEqual(Buffer.from(withBom));
    expect(cache.size).toBe(1);
  });

  it('returns a text larger than the whole cache without keeping it', () => {
    const cache = new VerifiedTextCache(3);
    expect(cache.remember(sha256Hex('abcd'), bytes('abcd'))?.text).toBe('abcd');
    expect(cache.size).toBe(0);
  });
});
