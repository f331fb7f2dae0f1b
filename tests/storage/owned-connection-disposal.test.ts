import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/index.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { createFoldRuntime } from '../../composition/index.ts';

/**
 * Who closes a store that owns its connection (a SQLite store owns its file's). A runtime the
 * host built on it with `createFoldRuntime` closes it with itself, so nothing keeps the process
 * alive. The AI SDK's `createFolding`, which a server calls once per request with one shared
 * store, leaves it open: the next request must still find it working.
 */
const fresh = () => join(mkdtempSync(join(tmpdir(), 'pi-fold-owned-')), 'folds.sqlite');

describe('a store that owns its connection', () => {
  it('is closed by the runtime createFoldRuntime built on it', async () => {
    const store = createSqliteFoldStore({ path: fresh() });
    const composed = await createFoldRuntime({ sessionId: 'one', store });
    await composed.runtime.act({ action: 'status' });
    await composed.dispose();
    await expect(store.putBlob('after the runtime was disposed')).rejects.toThrow();
  });

  it('stays open across createFolding runs that share it', async () => {
    const store = createSqliteFoldStore({ path: fresh() });
    for (const sessionId of ['request-1', 'request-2', 'request-3']) {
      const folding = await createFolding({ sessionId, store, settings: { providerInputBudget: 50_000 } });
      await folding.dispose();
    }
    const sha256 = await store.putBlob('still open');
    expect(await store.getBlob(sha256)).toBeDefined();
    await store.dispose();
  });
});
