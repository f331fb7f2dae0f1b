import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { missingServerBinaries, type PrivateServer, startPrivateRedis } from '../hardening/support/private-servers.ts';
import { failFastRedisKeyv } from '../hardening/support/server-keyvs.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { runNamespace } from './support/storage-backends.ts';

/**
 * Redis as a store meets it: a server that does not answer, a client still connecting, a
 * configuration that would hide failures, and a server that may evict keys. The server is
 * private to this file, because pausing it or changing its eviction policy must not touch
 * what other suites share.
 */
const run = promisify(execFile);
/** Nothing listens on port 1 of loopback. */
const NOTHING_LISTENS = 'redis://127.0.0.1:1';
const missing = missingServerBinaries();

const rejection = async (promise: Promise<unknown>): Promise<FoldError> => {
  try {
    await promise;
  } catch (error) {
    if (FoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a FoldError, but the call succeeded');
};

/** A store on a Keyv `@keyv/redis` builds with its defaults (offline queue, endless reconnects), errors thrown. */
const queueingStore = (url: string, options: { callTimeoutMs?: number } = {}) =>
  new KeyvFoldStore({
    keyv: new Keyv({
      store: new KeyvRedis(url, { throwOnErrors: true }),
      namespace: runNamespace(),
      throwOnErrors: true,
      useKeyPrefix: false,
    }),
    ownsConnection: true,
    ...options,
  });

describe('a Redis store never hangs a caller', () => {
  it('fails a call to a server nobody answers for within its deadline, naming the store', async () => {
    const store = queueingStore(NOTHING_LISTENS, { callTimeoutMs: 300 });
    try {
      const error = await rejection(store.loadState('s1'));
      expect(error.code).toBe('STORE.READ_FAILED');
      expect(error.message).toMatch(/redis store failed to connect to redis:\/\/127\.0\.0\.1:1/);
      expect(error.message).toMatch(/no answer within 300 ms/);
    } finally {
      await store.dispose();
    }
  }, 20_000);

  it('`verify`, `gc` and `view` of a server nobody listens on fail with a coded error and exit 2', async () => {
    for (const command of [['verify'], ['gc'], ['gc', '--dry-run'], ['view']]) {
      const result = await runCliCaptured([...command, NOTHING_LISTENS]);
      expect(result.exitCode, command.join(' ')).toBe(2);
      expect(result.error).toMatch(/cannot open redis:\/\/127\.0\.0\.1:1: STORE\.READ_FAILED: .*ECONNREFUSED/);
    }
  }, 30_000);

  it('refuses, before connecting, a @keyv/redis adapter that answers failed commands as misses', () => {
    const keyv = new Keyv({ store: new KeyvRedis(NOTHING_LISTENS), throwOnErrors: true, useKeyPrefix: false });
    expect(() => new KeyvFoldStore({ keyv })).toThrow(/SETTINGS\.INVALID.*throwOnErrors: true/);
  });
});

if (missing !== undefined) {
  if (process.env.CI === 'true')
    test('redis-server is installed', () => {
      throw new Error(missing);
    });
  else describe.skip(`redis on a private server (${missing})`, () => test('skipped', () => undefined));
} else {
  describe('a Redis store on a private server', () => {
    let directory: string;
    let server: PrivateServer;
    const redisCli = (...words: string[]) =>
      run('redis-cli', ['-u', server.url, ...words]).then(({ stdout }) => stdout.trim());

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'pi-fold-redis-deadlines-'));
      server = await startPrivateRedis(directory);
    }, 30_000);
    afterAll(async () => {
      await server?.dispose();
      rmSync(directory, { recursive: true, force: true });
    });

    it('opens sessions at once on a fail-fast client that has not connected yet', async () => {
      const store = new KeyvFoldStore({ keyv: failFastRedisKeyv(server.url, runNamespace()), ownsConnection: true });
      try {
        // Several sessions open side by side before the client has connected.
        const opened = await Promise.all(['a', 'b', 'c'].map((sessionId) => openRuntime({ store, sessionId })));
        expect(opened).toHaveLength(3);
      } finally {
        await store.dispose();
      }
    });

    it("refuses a server whose maxmemory-policy may evict folds, and says which, unless told 'warn'", async () => {
      const namespace = runNamespace();
      const written = new KeyvFoldStore({ keyv: failFastRedisKeyv(server.url, namespace), ownsConnection: true });
      const { runtime } = await openRuntime({ store: written, sessionId: 'kept' });
      await step(runtime, new SyntheticSession({ seed: 2 }));
      await written.dispose();
      await redisCli('CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
      try {
        const refused = queueingStore(server.url);
        const error = await rejection(openRuntime({ store: refused }));
        await refused.dispose();
        expect(error.code).toBe('SETTINGS.INVALID');
        expect(error.message).toMatch(/maxmemory-policy is allkeys-lru.*noeviction/);

        const warnings: string[] = [];
        const warned = new KeyvFoldStore({
          keyv: failFastRedisKeyv(server.url, runNamespace()),
          ownsConnection: true,
          evictingServer: 'warn',
          onWarning: (message) => warnings.push(message),
        });
        await openRuntime({ store: warned });
        await warned.dispose();
        expect(warnings.join('\n')).toMatch(/allkeys-lru/);

        // verify still runs there (it is how evicted keys are found), and says what the server may do.
        const verified = await runCliCaptured(['verify', server.url, '--namespace', namespace]);
        expect(verified.exitCode, verified.out).toBe(0);
        expect(verified.out).toMatch(/note: redis store: the server's maxmemory-policy is allkeys-lru/);
      } finally {
        await redisCli('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      }
    }, 30_000);

    it('sends the request with a warning when the server stops answering mid-session', async () => {
      const store = queueingStore(server.url, { callTimeoutMs: 300 });
      const { runtime } = await openRuntime({ store, sessionId: 'paused' });
      const session = new SyntheticSession({ seed: 4, resultChars: [2_000, 6_000] });
      try {
        await step(runtime, session);
        // The server holds every client's commands for 5 s: nothing it is sent is answered.
        await redisCli('CLIENT', 'PAUSE', '5000', 'ALL');
        session.step();
        const result = await runtime.project(session.entries);
        expect(result.messages.length).toBeGreaterThan(0);
        expect(result.warnings.join('\n')).toMatch(/redis store .*no answer within 300 ms/);
      } finally {
        await store.dispose();
      }
    }, 30_000);
  });
}

async function step(runtime: FoldRuntime, session: SyntheticSession): Promise<void> {
  session.step();
  const result = await runtime.project(session.entries);
  runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 100 });
}
