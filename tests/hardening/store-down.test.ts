import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Keyv from 'keyv';
import { describe, expect, it, test } from 'vitest';
import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { appendOnlyViolations, pairingViolations } from '../../testing/window-checks.ts';
import { auditSessionFolds } from './support/fold-audit.ts';
import {
  missingServerBinaries,
  type PrivateServer,
  startPrivatePostgres,
  startPrivateRedis,
} from './support/private-servers.ts';
import { failFastPostgresKeyv, failFastRedisKeyv } from './support/server-keyvs.ts';

/**
 * Store down: a session folding into a real Redis or PostgreSQL whose server process is
 * killed mid-session and started again. Every request still goes out (nothing folded that
 * was not stored), the host gets one warning for the outage, and commits resume once the
 * server is back. The servers are private to this test, so stopping them disturbs no one.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const OUTAGES = long ? 5 : 1;
const STEPS_PER_PHASE = 12;
const missing = missingServerBinaries();

const backends = [
  { name: 'redis', start: startPrivateRedis, connect: failFastRedisKeyv },
  { name: 'postgres', start: startPrivatePostgres, connect: failFastPostgresKeyv },
] as const;

if (missing !== undefined) {
  if (process.env.CI === 'true')
    test('redis-server and postgresql are installed', () => {
      throw new Error(missing);
    });
  else describe.skip(`store down (${missing})`, () => test('skipped', () => undefined));
} else {
  describe('hardening: the shared store goes down mid-session', () => {
    for (const backend of backends) {
      it(`${backend.name}: ${OUTAGES} server kill(s) and restart(s): requests go out, one warning per outage, commits resume, nothing lost`, {
        timeout: 90_000 * OUTAGES,
      }, async () => {
        const directory = mkdtempSync(join(tmpdir(), `pi-fold-down-${backend.name}-`));
        // PostgreSQL runs as its own user and must be able to reach its data directory.
        chmodSync(directory, 0o755);
        const server: PrivateServer = await backend.start(join(directory, 'server'));
        const keyv: Keyv = backend.connect(server.url, `down-${process.pid}`);
        try {
          await driveThroughOutages(new KeyvFoldStore({ keyv }), server, backend.name);
        } finally {
          await keyv.disconnect().catch(() => undefined);
          await server.dispose();
          rmSync(directory, { recursive: true, force: true });
        }
      });
    }
  });
}

async function driveThroughOutages(store: KeyvFoldStore, server: PrivateServer, label: string): Promise<void> {
  const sessionId = `down-${label}`;
  const sink = new RecordingProjectionSink();
  const runtime = await FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 40_000 }),
    foldStore: store,
    costModel: createCharsCostModel(),
    projectionSink: sink,
  });
  const session = new SyntheticSession({ seed: 5, resultChars: [2_000, 6_000], parallelShare: 0 });
  const warnings: string[] = [];
  const landed = () => sink.projections.reduce((sum, projection) => sum + projection.ledger.foldsLanded, 0);
  const request = async () => {
    session.step();
    const result = await runtime.project(session.entries);
    warnings.push(...result.warnings);
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 50 });
  };
  const phase = async (steps: number) => {
    for (let step = 0; step < steps; step += 1) await request();
    // A person's /fold at the end of each phase: a commit always meets the store's state.
    runtime.requestCommit('user-fold');
    await request();
  };

  await phase(STEPS_PER_PHASE);
  expect(landed(), 'folds land while the server is up').toBeGreaterThan(0);
  expect(warnings).toEqual([]);
  for (let outage = 1; outage <= OUTAGES; outage += 1) {
    const landedBefore = landed();
    const projectionsBefore = sink.projections.length;
    await server.stop();
    const warningsBefore = warnings.length;
    await phase(4);
    const outageWarnings = warnings.slice(warningsBefore);
    expect(sink.projections.length - projectionsBefore, 'every request of the outage was projected and sent').toBe(5);
    expect(landed(), 'nothing lands while the server is down').toBe(landedBefore);
    expect(outageWarnings, 'one warning for the whole outage').toHaveLength(1);
    expect(outageWarnings[0]).toMatch(new RegExp(`${label} store`));
    await server.start();
    // The client reconnects on its own schedule; wait for it rather than fill the window meanwhile.
    await waitUntilReachable(store);
    for (let attempt = 0; attempt < 5 && landed() === landedBefore; attempt += 1) await phase(1);
    expect(landed(), 'commits resume once the server is back').toBeGreaterThan(landedBefore);
  }
  const transcript = new Map(session.entries.map((entry) => [entry.id, entry.bytes]));
  const audit = await auditSessionFolds(store, sessionId, transcript);
  expect(audit.losses).toEqual([]);
  expect(audit.folds).toBeGreaterThan(0);
  expect(appendOnlyViolations(sink.projections)).toEqual([]);
  for (const projection of sink.projections) expect(pairingViolations(projection.messages)).toEqual([]);
  // A new process would open the session from the store alone: it must load and project.
  const reopened = await FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 40_000 }),
    foldStore: store,
    costModel: createCharsCostModel(),
  });
  const next = await reopened.project(session.entries);
  expect(pairingViolations(next.messages)).toEqual([]);
  console.info(
    `[store-down ${label}] ${OUTAGES} outage(s), ${sink.projections.length} requests all sent, ${warnings.length} warning(s), ${audit.folds} folds audited (${audit.entriesCompared} entries byte-equal), 0 lost`,
  );
}

async function waitUntilReachable(store: KeyvFoldStore): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      await store.hasBlob('0'.repeat(64));
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  throw new Error(`${store.name} store did not come back within 10 s of the server restart`);
}
