import { expect } from 'vitest';
import { collectGarbage, type GarbageCollectionReport } from '../../../application/retention/store-gc.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import { type BuiltStore, firstUnreadableFold } from './gc-store-builder.ts';

/**
 * The gc property every backend must hold, checked after one collection with no grace
 * (everything built was written before it): every fold still reads, every referenced blob is
 * kept, every unreferenced one is deleted, and the report counts exactly those.
 */
export async function collectAndCheckReachability(
  store: FoldStore,
  built: BuiltStore,
): Promise<GarbageCollectionReport> {
  const report = await collectGarbage(store, { graceMs: 0, now: () => Date.now() + 1 });
  expect(await firstUnreadableFold(store, built)).toBeUndefined();
  for (const sha256 of built.referenced) expect(await store.hasBlob(sha256)).toBe(true);
  for (const sha256 of built.garbageOnly) expect(await store.hasBlob(sha256)).toBe(false);
  expect(report.deleted).toEqual({ count: built.garbageOnly.size, bytes: built.garbageBytes });
  return report;
}
