import { appendFile, chmod, readFile, truncate, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { expect } from 'vitest';
import { FsEvidenceStore } from '../../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { requestLogPath } from '../../../adapters/backends/storage-fs/fs-request-log.ts';
import {
  blobKey,
  evidenceKey,
  evidenceUsageKey,
  foldKey,
  requestLogChunkKey,
  stateKey,
} from '../../../adapters/backends/storage-keyv/keyv-records.ts';
import {
  createSqliteEvidenceStore,
  createSqliteFoldStore,
} from '../../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { createFoldRuntime } from '../../../composition/create-fold-runtime.ts';
import type { FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../../testing/synthetic-session.ts';
import { pairingViolations } from '../../../testing/window-checks.ts';
import { providerTokens } from '../../support/drive-session.ts';

/**
 * Store damage applied from outside, the way a disk fault, a full disk or a stray tool leaves
 * it, on the fs store and on SQLite: the same accident on both, so their verdicts can be
 * compared. Sessions are written through the composition root a host uses (caps included).
 */

export type DamagedBackend = 'fs' | 'sqlite';

/** A store with real sessions written through `createFoldRuntime`. */
export interface BuiltStore {
  readonly backend: DamagedBackend;
  /** What the CLI is pointed at: the store directory or the SQLite file. */
  readonly target: string;
  readonly sessions: ReadonlyMap<string, SyntheticSession>;
}

const BUDGET = { providerInputBudget: 30_000 };

function runtimeOptions(built: Pick<BuiltStore, 'backend' | 'target'>, sessionId: string) {
  return built.backend === 'fs'
    ? { sessionId, store: 'fs' as const, storeRoot: built.target, settings: BUDGET }
    : { sessionId, store: 'sqlite' as const, sqlitePath: built.target, settings: BUDGET };
}

/**
 * Drive a session `steps` requests further (a fresh runtime each call), checking every request
 * goes out whole; `afterOpen` runs once the runtime has opened (damage a live process meets).
 */
export async function driveOn(
  built: BuiltStore,
  sessionId: string,
  steps: number,
  afterOpen?: () => Promise<void>,
): Promise<void> {
  const composed = await createFoldRuntime(runtimeOptions(built, sessionId));
  try {
    await afterOpen?.();
    const session = built.sessions.get(sessionId)!;
    for (let step = 0; step < steps; step += 1) {
      session.step();
      const result = await composed.runtime.project(session.entries);
      expect(pairingViolations(result.messages)).toEqual([]);
      composed.runtime.recordUsage({
        input: providerTokens(result.ledger.totalChars),
        cacheRead: 0,
        cacheWrite: 0,
        output: 100,
      });
    }
  } finally {
    await composed.dispose();
  }
}

/** Two sessions of 60 requests each in one store. */
export async function buildStore(backend: DamagedBackend, directory: string): Promise<BuiltStore> {
  const target = backend === 'fs' ? join(directory, 'store') : join(directory, 'folds.sqlite');
  const sessions = new Map([
    ['sa', new SyntheticSession({ seed: 3, resultChars: [3000, 12_000] })],
    ['sb', new SyntheticSession({ seed: 5, resultChars: [3000, 12_000] })],
  ]);
  const built = { backend, target, sessions };
  for (const sessionId of sessions.keys()) await driveOn(built, sessionId, 60);
  return built;
}

/** A store handle on the target for reading what is there (dispose it). */
export function openStore(built: BuiltStore): FoldStore {
  return built.backend === 'fs'
    ? new FsFoldStore({ root: built.target })
    : createSqliteFoldStore({ path: built.target, journalMode: 'keep' });
}

/** Read something of the store through a handle opened for the purpose. */
export async function readStore<T>(built: BuiltStore, read: (store: FoldStore) => Promise<T>): Promise<T> {
  const store = openStore(built);
  try {
    return await read(store);
  } finally {
    await store.dispose?.();
  }
}

/** What a key or path is, as both backends spell it. */
export type StoredThing =
  | { readonly kind: 'state'; readonly sessionId: string }
  | { readonly kind: 'fold'; readonly sessionId: string; readonly foldId: string }
  | { readonly kind: 'blob'; readonly sha256: string }
  | { readonly kind: 'request-log'; readonly sessionId: string }
  | { readonly kind: 'evidence'; readonly sessionId: string; readonly sha256: string }
  | { readonly kind: 'evidence-usage'; readonly sessionId: string };

function fsPath(built: BuiltStore, thing: StoredThing): string {
  const { layout } = new FsFoldStore({ root: built.target });
  if (thing.kind === 'state') return layout.statePath(thing.sessionId);
  if (thing.kind === 'fold') return layout.foldPath(thing.sessionId, thing.foldId);
  if (thing.kind === 'blob') return layout.blobPath(thing.sha256);
  if (thing.kind === 'evidence') return layout.evidencePath(thing.sessionId, thing.sha256);
  if (thing.kind === 'evidence-usage') throw new Error('the fs evidence store keeps no usage counter');
  return requestLogPath(layout, thing.sessionId);
}

/** The key (SQLite) or root-relative path (fs) a verify report names it by. */
export function reportedKey(built: BuiltStore, thing: StoredThing): string {
  if (built.backend === 'fs') return new FsFoldStore({ root: built.target }).layout.keyOf(fsPath(built, thing));
  if (thing.kind === 'state') return stateKey(thing.sessionId);
  if (thing.kind === 'fold') return foldKey(thing.sessionId, thing.foldId);
  if (thing.kind === 'blob') return blobKey(thing.sha256);
  if (thing.kind === 'evidence') return evidenceKey(thing.sessionId, thing.sha256);
  if (thing.kind === 'evidence-usage') return evidenceUsageKey(thing.sessionId);
  return requestLogChunkKey(thing.sessionId, 0);
}

/** Spill an artifact into the session's evidence, as the runtime does for a large tool result. */
export async function putEvidence(built: BuiltStore, sessionId: string, text: string): Promise<string> {
  const store =
    built.backend === 'fs'
      ? new FsEvidenceStore({ root: built.target })
      : createSqliteEvidenceStore({ path: built.target, journalMode: 'keep' });
  try {
    return (await store.put(sessionId, text)).sha256;
  } finally {
    await store.dispose?.();
  }
}

/** Cut a stored value to its first half, as a write torn by a crash or a full disk leaves it. */
export async function tear(built: BuiltStore, thing: StoredThing): Promise<void> {
  if (built.backend === 'fs') {
    const path = fsPath(built, thing);
    await chmod(path, 0o644);
    await truncate(path, Math.floor((await readFile(path)).length / 2));
    return;
  }
  const changed = await sqliteRun(
    built.target,
    'UPDATE keyv SET value = substr(value, 1, length(value) / 2) WHERE key = ?',
    [`pi-fold:${reportedKey(built, thing)}`],
  );
  expect(changed).toBe(1);
}

/** Copy one fold record over another's id (the bytes of `from`, filed under `over`). */
export async function copyRecordOver(built: BuiltStore, sessionId: string, from: string, over: string): Promise<void> {
  if (built.backend === 'fs') {
    const target = fsPath(built, { kind: 'fold', sessionId, foldId: over });
    await chmod(target, 0o644);
    await writeFile(target, await readFile(fsPath(built, { kind: 'fold', sessionId, foldId: from })));
    return;
  }
  const changed = await sqliteRun(
    built.target,
    'UPDATE keyv SET value = (SELECT value FROM keyv WHERE key = ?) WHERE key = ?',
    [`pi-fold:${foldKey(sessionId, from)}`, `pi-fold:${foldKey(sessionId, over)}`],
  );
  expect(changed).toBe(1);
}

/** Delete a stored value outright (an eviction, a stray `rm`). */
export async function remove(built: BuiltStore, thing: StoredThing): Promise<void> {
  if (built.backend === 'fs') return unlink(fsPath(built, thing));
  await sqliteRun(built.target, 'DELETE FROM keyv WHERE key = ?', [`pi-fold:${reportedKey(built, thing)}`]);
}

/**
 * Every key of a session but its request log deleted, with every blob only it needs: what an
 * evicting server leaves of it.
 */
export async function evictAllButRequestLog(built: BuiltStore, sessionId: string): Promise<void> {
  const store = openStore(built);
  const state = (await store.loadState(sessionId))!;
  const records = await store.listFolds(sessionId);
  const othersNeed = new Set<string>();
  for (const other of await store.listSessions!())
    if (other !== sessionId)
      for (const record of await store.listFolds(other))
        for (const part of record.parts) if (part.kind === 'entry') othersNeed.add(part.sha256);
  await store.dispose?.();
  for (const record of records) {
    for (const part of record.parts)
      if (part.kind === 'entry' && !othersNeed.has(part.sha256))
        await remove(built, { kind: 'blob', sha256: part.sha256 }).catch(() => undefined);
    await remove(built, { kind: 'fold', sessionId, foldId: record.id });
  }
  expect(state.foldIds.length).toBeGreaterThan(0);
  await remove(built, { kind: 'state', sessionId });
}

/** Every key of a SQLite store deleted: what a store all of whose keys were evicted holds. */
export async function evictEverything(built: BuiltStore): Promise<void> {
  expect(await sqliteRun(built.target, 'DELETE FROM keyv', [])).toBeGreaterThan(0);
  // Fold the WAL back so the file itself is what a later read-only open sees.
  await sqliteRun(built.target, 'PRAGMA wal_checkpoint(TRUNCATE)', []);
}

/**
 * Tear the fs request log the way a full disk does: the last row cut short, then the next
 * append written after it on the same line.
 */
export async function tearRequestLogMidway(built: BuiltStore, sessionId: string): Promise<void> {
  const path = fsPath(built, { kind: 'request-log', sessionId });
  const text = await readFile(path, 'utf8');
  const lines = text.split('\n').slice(0, -1);
  const last = lines[lines.length - 1]!;
  await writeFile(path, `${lines.slice(0, -1).join('\n')}\n${last.slice(0, Math.floor(last.length / 2))}`);
  await appendFile(path, `${last}\n`);
}

/** A readable fold record of the session, and one it lists that nests nothing. */
export async function listedRecords(built: BuiltStore, sessionId: string): Promise<FoldRecord[]> {
  return readStore(built, async (store) => {
    const state = (await store.loadState(sessionId))!;
    return Promise.all(state.foldIds.map(async (foldId) => (await store.getFold(sessionId, foldId))!));
  });
}

function sqliteRun(path: string, sql: string, parameters: readonly unknown[]): Promise<number> {
  const database = new sqlite3.Database(path);
  return new Promise<number>((resolve, reject) =>
    database.run(sql, parameters as unknown[], function (this: { changes: number }, error: Error | null) {
      database.close(() => (error ? reject(error) : resolve(this.changes)));
    }),
  );
}
