import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { QuotaFoldStore } from '../../application/retention/quota-fold-store.ts';
import { collectGarbage } from '../../application/retention/store-gc.ts';
import { collectAndCheckReachability } from './support/gc-property.ts';
import { concurrentWriterScenario, dryRunThenCollectScenario, type WithStore } from './support/gc-scenarios.ts';
import { buildStore, storePlan } from './support/gc-store-builder.ts';
import { POSTGRES_URL_VARIABLE, REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import { postgresKeyv, redisKeyv, runNamespace } from './support/storage-backends.ts';
import { keyvSnapshot } from './support/store-snapshots.ts';

/**
 * gc and caps on real Redis and PostgreSQL servers, the shared stores where an unbounded
 * store hurts most. Each test gets its own namespace. Under CI a missing server URL fails.
 */
const backends = [
  { name: 'redis', variable: REDIS_URL_VARIABLE, connect: redisKeyv, cliOptions: [] as string[] },
  { name: 'postgres', variable: POSTGRES_URL_VARIABLE, connect: postgresKeyv, cliOptions: ['--table', 'pi_fold_test'] },
] as const;

for (const backend of backends) {
  const server = serverUrl(backend.variable);
  if (server.url === undefined) {
    if (server.required)
      test(`${backend.name} server is available for gc tests`, () => {
        throw new Error(server.missingReason);
      });
    else describe.skip(`gc on ${backend.name} (${server.missingReason})`, () => test('skipped', () => undefined));
    continue;
  }
  const url = server.url;
  // @keyv/postgres ends its one per-process pool on disconnect; the next query opens a new one.
  const open = (namespace = runNamespace()) => ({
    namespace,
    store: new KeyvFoldStore({ keyv: backend.connect(url, namespace), ownsConnection: true }),
  });

  describe(`gc on ${backend.name}`, () => {
    test('never deletes a referenced blob, and deletes every unreferenced one', async () => {
      await fc.assert(
        fc.asyncProperty(storePlan, async (plan) => {
          const { store } = open();
          try {
            const built = await buildStore(store, plan, `gc-${backend.name}`);
            await collectAndCheckReachability(store, built);
          } finally {
            await store.dispose();
          }
        }),
        { numRuns: 8 },
      );
    }, 240_000);

    test('--dry-run changes no key or value; gc then frees exactly the garbage', async () => {
      const namespace = runNamespace();
      // A store per phase, closed before the CLI opens its own (@keyv/postgres shares one pool per process).
      const withStore: WithStore = async (use) => {
        const { store } = open(namespace);
        try {
          return await use(store);
        } finally {
          await store.dispose();
        }
      };
      await dryRunThenCollectScenario(withStore, (store) => keyvSnapshot(store as KeyvFoldStore), [
        url,
        '--namespace',
        namespace,
        ...backend.cliOptions,
      ]);
    }, 60_000);

    test('a blob a writer re-puts while gc runs is kept', async () => {
      const { store } = open();
      try {
        await concurrentWriterScenario(store);
      } finally {
        await store.dispose();
      }
    });

    // @keyv/postgres ends an iteration on a failed query with only an 'error' event; the store
    // must turn that into a failure. (@keyv/redis reconnects on the next command instead.)
    test.runIf(backend.name === 'postgres')(
      'a listing cut short by a failed query stops gc instead of passing as complete',
      async () => {
        const { store } = open();
        await store.putBlob('bytes of a store whose connection drops');
        // Drop the connection under the store, as a server restart or an ended pool would.
        await store.connection.keyv.disconnect();
        await expect(collectGarbage(store, { graceMs: 0 })).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
      },
    );

    test('the session cap refuses with STORE.QUOTA and writes nothing', async () => {
      const { store } = open();
      try {
        const capped = new QuotaFoldStore(store, 'capped', { sessionCapBytes: 1000 });
        await capped.putBlob('p'.repeat(900));
        await expect(capped.putBlob('q'.repeat(200))).rejects.toMatchObject({
          code: 'STORE.QUOTA',
          details: { usedBytes: 900, capBytes: 1000 },
        });
        let blobs = 0;
        for await (const _blob of store.listBlobs()) blobs += 1;
        expect(blobs).toBe(1);
      } finally {
        await store.dispose();
      }
    });
  });
}
