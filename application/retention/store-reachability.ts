import { FoldError } from '../../core/fold-error.ts';
import { isRecordDamage } from '../../core/store/restore-folds.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { DamagedFoldRecord, FoldStore } from '../../ports/fold-store.port.ts';

/** What is live in a store: every blob some fold of some session needs to be read back. */
export interface ReachableBlobs {
  /** SHA-256 of every blob a fold record names, at every depth, in every session. */
  readonly referenced: Set<string>;
  readonly sessions: number;
  readonly folds: number;
  /**
   * Damage walked around, each named by key: a fold record or state that cannot be read.
   * Every SHA-256 a damaged record's text still names stays referenced, so nothing it may
   * need is deleted while `pi-fold repair` has not looked at it.
   */
  readonly damaged: readonly DamagedReference[];
}

/** A stored record or state gc could not read, and walked around. */
export interface DamagedReference {
  readonly sessionId: string;
  readonly key: string;
  readonly message: string;
}

/**
 * Walk every session of a store and collect the blobs its folds reference. Every fold record
 * is a root (records are immutable history: an expanded, refolded or nested fold still needs
 * its bytes), and so is every fold the engine state names; from each root the walk descends
 * into nested child folds, so the entries of folds inside consolidations are reached too.
 *
 * Fails closed where a reference cannot be known: a store that fails, or a child or state fold
 * id with no record, throws, and gc then deletes nothing. Damage the store names by key is
 * walked around instead, so one damaged file never stops gc for every session: a damaged
 * record keeps every blob its stored text names, and a damaged state adds no root a record
 * does not already give (every record is one).
 */
export async function findReachableBlobs(
  store: FoldStore,
  onSession?: (sessionId: string, done: number, total: number) => void | Promise<void>,
): Promise<ReachableBlobs> {
  if (store.listSessions === undefined)
    throw new FoldError('SETTINGS.INVALID', `${store.name} store cannot list its sessions (no retention support)`);
  const listed = await store.listSessions();
  const referenced = new Set<string>();
  const damaged: DamagedReference[] = [];
  const damagedFolds = new Set<string>();
  const allFolds = await foldsByStoreWalk(store, (record) => {
    damaged.push({ sessionId: record.sessionId, key: record.key, message: record.message });
    damagedFolds.add(`${record.sessionId}/${record.foldId}`);
    for (const sha256 of record.sha256s) referenced.add(sha256);
  });
  // A session that gained its first record between the two walks counts too.
  const sessionIds = [...new Set([...listed, ...(allFolds?.keys() ?? [])])];
  let folds = 0;
  for (const [position, sessionId] of sessionIds.entries()) {
    const records = allFolds?.get(sessionId) ?? new Map<string, FoldRecord>();
    if (allFolds === undefined) for (const record of await store.listFolds(sessionId)) records.set(record.id, record);
    folds += records.size;
    const state = await readableState(store, sessionId, damaged);
    const roots = [
      ...records.keys(),
      ...(state?.foldIds ?? []),
      ...(state?.expanded ?? []),
      ...(state?.ephemeralPeeks ?? []).map((peek) => peek.foldId),
    ];
    const visited = new Set<string>();
    const stateNamed = new Set(roots.slice(records.size));
    const walk = { store, sessionId, records, visited, referenced, damagedFolds, stateNamed, damaged };
    for (const root of roots) await visit(walk, root);
    await onSession?.(sessionId, position + 1, sessionIds.length);
  }
  return { referenced, sessions: sessionIds.length, folds, damaged };
}

/** The session's state; a damaged one is named and walked around (its records are roots anyway). */
async function readableState(store: FoldStore, sessionId: string, damaged: DamagedReference[]) {
  try {
    return await store.loadState(sessionId);
  } catch (error) {
    if (!isRecordDamage(error)) throw error;
    const key = String((error as FoldError).details?.key ?? `session/${sessionId}/state`);
    damaged.push({ sessionId, key, message: (error as Error).message });
    return undefined;
  }
}

interface SessionWalk {
  readonly store: FoldStore;
  readonly sessionId: string;
  readonly records: Map<string, FoldRecord>;
  readonly visited: Set<string>;
  readonly referenced: Set<string>;
  /** `<session>/<fold>` of records the store walk found damaged (already named, their blobs kept). */
  readonly damagedFolds: ReadonlySet<string>;
  /** Folds the session's state names: one of these without a record stops gc. */
  readonly stateNamed: ReadonlySet<string>;
  readonly damaged: DamagedReference[];
}

async function visit(walk: SessionWalk, foldId: string): Promise<void> {
  const { store, sessionId, records, visited, referenced } = walk;
  // An explicit stack: nesting depth is unbounded in principle, recursion is not.
  const stack = [foldId];
  while (stack.length > 0) {
    const current = stack.pop()!;
    if (visited.has(current)) continue;
    visited.add(current);
    if (walk.damagedFolds.has(`${sessionId}/${current}`)) continue;
    const record = records.get(current) ?? (await store.getFold(sessionId, current));
    if (record === undefined && !walk.stateNamed.has(current)) {
      // Nested only in a record the state no longer lists (a fold already lost): nothing live
      // can need it, and its blobs are named by no record left to read.
      walk.damaged.push({
        sessionId,
        key: `session/${sessionId}/fold/${current}`,
        message: `a fold record the state does not list nests fold ${current}, which has no record`,
      });
      continue;
    }
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
async function foldsByStoreWalk(
  store: FoldStore,
  onDamaged: (record: DamagedFoldRecord) => void,
): Promise<Map<string, Map<string, FoldRecord>> | undefined> {
  if (store.listAllFolds === undefined) return undefined;
  const bySession = new Map<string, Map<string, FoldRecord>>();
  for await (const { sessionId, record } of store.listAllFolds({ onDamaged })) {
    const records = bySession.get(sessionId) ?? new Map<string, FoldRecord>();
    records.set(record.id, record);
    bySession.set(sessionId, records);
  }
  return bySession;
}
