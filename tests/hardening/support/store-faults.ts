import { expect } from 'vitest';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';
import type { FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import type { SyntheticSession } from '../../../testing/synthetic-session.ts';
import { pairingViolations } from '../../../testing/window-checks.ts';
import { driveSession, openRuntime, providerTokens } from '../../support/drive-session.ts';

/**
 * Store accidents (a record deleted or damaged, a blob gone, a state lost, keys evicted)
 * and what a session must still do under each: open, keep every fold whose bytes the store
 * still holds peekable byte for byte, name what is lost, and go on folding.
 */
export const FAULT_SESSION = 'session-1';

/** A session with nested folds, and the full peek text of every fold it committed. */
export interface FoldedSession {
  readonly runtime: FoldRuntime;
  readonly session: SyntheticSession;
  readonly records: readonly FoldRecord[];
  readonly peeks: ReadonlyMap<string, string>;
}

export async function foldedSession(store: FoldStore, seed = 11): Promise<FoldedSession> {
  const driven = await driveSession({ seed, steps: 70, store });
  // The fs store writes some states in the background; loading waits for them.
  await store.loadState(FAULT_SESSION);
  const records = [...driven.runtime.view.lattice.allRecords()];
  expect(records.some((record) => record.parts.some((part) => part.kind === 'fold'))).toBe(true);
  const peeks = new Map<string, string>();
  for (const record of records) peeks.set(record.id, await peekText(driven.runtime, record.id));
  return { runtime: driven.runtime, session: driven.session, records, peeks };
}

/** A fold's whole one-level source as peek shows it (not ephemeral, so it changes nothing later). */
export async function peekText(runtime: FoldRuntime, foldId: string): Promise<string> {
  const answer = await runtime.act({ action: 'peek', id: foldId, ephemeral: false, bytes: 200_000 });
  return answer.text;
}

/** A parent fold and one of its children, for damage inside the forest. */
export function nestedPair(records: readonly FoldRecord[]): { parent: FoldRecord; child: FoldRecord } {
  const byId = new Map(records.map((record) => [record.id, record]));
  for (const parent of records)
    for (const part of parent.parts)
      if (part.kind === 'fold' && byId.has(part.foldId)) return { parent, child: byId.get(part.foldId)! };
  throw new Error('no nested folds in the session');
}

/** A fold and every fold that nests it, at any depth: what losing its record costs. */
export function withAncestors(records: readonly FoldRecord[], foldId: string): string[] {
  const lost = new Set([foldId]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const record of records) {
      if (lost.has(record.id)) continue;
      if (record.parts.some((part) => part.kind === 'fold' && lost.has(part.foldId))) {
        lost.add(record.id);
        grew = true;
      }
    }
  }
  return [...lost];
}

/**
 * Reopen on the damaged store and check every promise: the session opens, each fold not in
 * `lost` peeks exactly as before, each lost one is refused by name, the first projection warns
 * once, and folding goes on for `moreSteps` requests with commits landing.
 */
export async function expectSurvives(
  store: FoldStore,
  before: FoldedSession,
  lost: readonly string[],
  options: { readonly warns?: boolean; readonly bytesGone?: readonly string[] } = {},
): Promise<FoldRuntime> {
  const { runtime } = await openRuntime({ store });
  // Asked before the first request: the projection may cut a lost span again and land it
  // afresh from the conversation's own bytes, which is the way back, not a loss.
  for (const foldId of lost) {
    const refusal = await runtime.act({ action: 'peek', id: foldId }).catch((error: unknown) => error);
    expect(refusal, foldId).toMatchObject({ code: 'STORE.NOT_FOUND' });
    expect((refusal as Error).message).toContain(`fold ${foldId} is lost`);
  }
  const first = await runtime.project(before.session.entries);
  expect(pairingViolations(first.messages)).toEqual([]);
  const warned = first.warningRecords.filter((warning) => warning.code === 'STORE.FOLDS_LOST');
  if (options.warns !== false) {
    expect(warned).toHaveLength(1);
    expect(warned[0]!.details.lostFolds).toBe(lost.length);
    for (const foldId of lost.slice(0, 5)) expect(warned[0]!.message).toContain(foldId);
    expect(warned[0]!.message).toContain('lost');
  }
  for (const foldId of options.bytesGone ?? []) await expectBytesGone(runtime, foldId);
  for (const record of runtime.view.lattice.allRecords()) {
    if (!before.peeks.has(record.id) || options.bytesGone?.includes(record.id)) continue;
    expect(await peekText(runtime, record.id), record.id).toBe(before.peeks.get(record.id));
  }
  const kept = [...before.peeks.keys()].filter((foldId) => !lost.includes(foldId));
  const standing = new Set([...runtime.view.lattice.allRecords()].map((record) => record.id));
  for (const foldId of kept) expect(standing.has(foldId), `${foldId} kept`).toBe(true);
  await expectFoldingGoesOn(runtime, before.session);
  // Background state writes settle before the test's directory goes.
  await store.loadState(FAULT_SESSION);
  return runtime;
}

/** A standing fold whose blob is gone: peek is refused naming the fold as lost, nothing unverified shown. */
export async function expectBytesGone(runtime: FoldRuntime, foldId: string): Promise<void> {
  const refusal = await runtime.act({ action: 'peek', id: foldId }).catch((error: unknown) => error);
  expect(refusal, foldId).toMatchObject({ code: 'STORE.NOT_FOUND' });
  expect((refusal as Error).message).toContain(`fold ${foldId} is lost`);
}

/** Folds whose own entries include the blob. */
export function foldsNeedingBlob(records: readonly FoldRecord[], sha256: string): string[] {
  return records
    .filter((record) => record.parts.some((part) => part.kind === 'entry' && part.sha256 === sha256))
    .map((record) => record.id);
}

/** More requests on the reopened runtime: every one goes out, and commits keep landing. */
export async function expectFoldingGoesOn(runtime: FoldRuntime, session: SyntheticSession): Promise<void> {
  const commitsBefore = runtime.view.memory.counters.commits;
  for (let step = 0; step < 40; step += 1) {
    session.step();
    const result = await runtime.project(session.entries);
    expect(result.warningRecords.map((warning) => warning.code)).not.toContain('STORE.COMMIT_SKIPPED');
    expect(pairingViolations(result.messages)).toEqual([]);
    runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 200 });
  }
  expect(runtime.view.memory.counters.commits).toBeGreaterThan(commitsBefore);
}
