import { FoldError } from '../../core/fold-error.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/** What is live in a store: every blob some fold of some session needs to be read back. */
export interface ReachableBlobs {
  /** SHA-256 of every blob a fold record names, at every depth, in every session. */
  readonly referenced: Set<string>;
  readonly sessions: number;
  readonly folds: number;
}

/**
 * Walk every session of a store and collect the blobs its folds reference. Every fold record
 * is a root (records are immutable history: an expanded, refolded or nested fold still needs
 * its bytes), and so is every fold the engine state names; from each root the walk descends
 * into nested child folds, so the entries of folds inside consolidations are reached too.
 *
 * Fails closed: a record or state that cannot be read, or a child or state fold id with no
 * record, throws instead of being skipped, because an unreadable reference is not an absent
 * one and gc must then delete nothing.
 */
export async function findReachableBlobs(
  store: FoldStore,
  onSession?: (sessionId: string, done: number, total: number) => void | Promise<void>,
): Promise<ReachableBlobs> {
  if (store.listSessions === undefined)
    throw new FoldError('SETTINGS.INVALID', `${store.name} store cannot list its sessions (no retention support)`);
  const listed = await store.listSessions();
  const allFolds = await foldsByStoreWalk(store);
  // A session that gained its first record between the two walks counts too.
  const sessionIds = [...new Set([...listed, ...(allFolds?.keys() ?? [])])];
  const referenced = new Set<string>();
  let folds = 0;
  for (const [position, sessionId] of sessionIds.entries()) {
    const records = allFolds?.get(sessionId) ?? new Map<string, FoldRecord>();
    if (allFolds === undefined) for (const record of await store.listFolds(sessionId)) records.set(record.id, record);
    folds += records.size;
    const state = await store.loadState(sessionId);
    const roots = [
      ...records.keys(),
      ...(state?.foldIds ?? []),
      ...(state?.expanded ?? []),
      ...(state?.ephemeralPeeks ?? []).map((peek) => peek.foldId),
    ];
    const visited = new Set<string>();
    for (const root of roots) await visit(store, sessionId, records, root, visited, referenced);
    await onSession?.(sessionId, position + 1, sessionIds.length);
  }
  return { referenced, sessions: sessionIds.length, folds };
}

async function visit(
  store: FoldStore,
  sessionId: string,
  records: Map<string, FoldRecord>,
  foldId: string,
  visited: Set<string>,
  referenced: Set<string>,
): Promise<void> {
  // An explicit stack: nesting depth is unbounded in principle, recursion is not.
  const stack = [foldId];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (visited.has(current)) continue;
    visited.add(current);
    const record = records.get(current) ?? (await store.getFold(sessionId, current));
    if (record === undefined) {
      throw new FoldError(
        'STORE.NOT_FOUND',
        `${store.name} store: session ${sessionId} names fold ${current}, which has no record; run \`pi-fold verify\` — gc deletes nothing while references cannot be resolved`,
        {
          details: { sessionId, foldId: current },
        },
      );
    }
    for (const part of record.parts) {
      if (part.kind === 'entry') referenced.add(part.sha256);
      else stack.push(part.foldId);
    }
  }
}

/** Every session's records from one walk, when the store offers it; else `undefined` (list per session). */
async function foldsByStoreWalk(store: FoldStore): Promise<Map<string, Map<string, FoldRecord>> | undefined> {
  if (store.listAllFolds === undefined) return undefined;
  const bySession = new Map<string, Map<string, FoldRecord>>();
  for await (const { sessionId, record } of store.listAllFolds()) {
    const records = bySession.get(sessionId) ?? new Map<string, FoldRecord>();
    records.set(record.id, record);
    bySession.set(sessionId, records);
  }
  return bySession;
}
