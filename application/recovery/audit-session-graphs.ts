import { FoldError } from '../../core/fold-error.ts';
import type { EngineState, FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/**
 * `verify`'s walk of what each session needs, after every object was re-hashed on its own:
 * state → the fold records it lists → the folds they nest → the blobs of their entries.
 * Each object can be sound while the graph is broken (a record the state lists is gone, a
 * blob a record names was deleted or evicted), and that is exactly what locks a session's
 * folds away. Each break is named with its session and what it costs.
 *
 * Evidence artifacts are not part of this walk: a fold's blobs hold its spilled entries'
 * exact bytes whole, so a lost artifact costs no fold (only the peek of a spilled item shown
 * raw, and a runtime writes its branch's artifacts again); artifacts are re-hashed one by one.
 */

/** One break, in the shape of a store audit's problems. */
export interface GraphBreak {
  readonly key: string;
  readonly code: string;
  readonly message: string;
}

export interface GraphAuditReport {
  readonly problems: GraphBreak[];
  readonly notes: string[];
  /** Sessions whose state was walked. */
  sessions: number;
}

/** Walk every session of a store that can list them (stores with `capabilities.retention`). */
export async function auditSessionGraphs(store: FoldStore): Promise<GraphAuditReport> {
  const report: GraphAuditReport = { problems: [], notes: [], sessions: 0 };
  if (store.listSessions === undefined) {
    report.notes.push(`the ${store.name} store cannot list its sessions; references between records were not followed`);
    return report;
  }
  for (const sessionId of [...(await store.listSessions())].sort()) {
    const state = await readableState(store, sessionId);
    if (state === 'damaged') continue;
    if (state === undefined) {
      await noteStateless(store, sessionId, report);
      continue;
    }
    report.sessions += 1;
    await auditSession(store, state, report);
  }
  return report;
}

/** The state, `undefined` when there is none, `'damaged'` when the object audit already named it. */
async function readableState(store: FoldStore, sessionId: string): Promise<EngineState | undefined | 'damaged'> {
  try {
    return await store.loadState(sessionId);
  } catch (error) {
    if (FoldError.isInstance(error) && error.code !== 'STORE.READ_FAILED') return 'damaged';
    throw error;
  }
}

/**
 * A session without a state is a loss `repair` acts on when fold records remain (it brings
 * back every one that verifies), or when its request log shows commits that landed folds
 * although neither a state nor a record is left (its keys were evicted or deleted): the
 * state is written before any commit's request goes out, so it cannot be missing after one.
 */
async function noteStateless(store: FoldStore, sessionId: string, report: GraphAuditReport): Promise<void> {
  const records = await store.listFolds(sessionId).catch(() => undefined);
  if (records !== undefined && records.length > 0) {
    report.problems.push({
      key: `session/${sessionId}/state`,
      code: 'STORE.NOT_FOUND',
      message: `session ${sessionId} has ${records.length} fold record(s) and no state (a lost state, or a first commit a crash cut short): it opens without them; \`pi-fold repair <store> --session ${sessionId}\` brings back every one that verifies`,
    });
    return;
  }
  if (records === undefined) return;
  const commits = await landedCommits(store, sessionId);
  if (commits > 0)
    report.problems.push({
      key: `session/${sessionId}/state`,
      code: 'STORE.NOT_FOUND',
      message: `session ${sessionId}: its request log records ${commits} commit(s) that landed folds, but the ${store.name} store holds neither its state nor any of its fold records (evicted or deleted): its folds are lost, their spans show raw; \`pi-fold repair <store> --session ${sessionId}\` records the loss`,
    });
}

async function auditSession(store: FoldStore, state: EngineState, report: GraphAuditReport): Promise<void> {
  const { sessionId } = state;
  const listed = new Set(state.foldIds);
  const records = new Map<string, FoldRecord>();
  const lostRecords = new Map<string, string>();
  for (const foldId of listed) {
    try {
      const record = await store.getFold(sessionId, foldId);
      if (record === undefined) lostRecords.set(foldId, 'missing');
      else records.set(foldId, record);
    } catch (error) {
      if (!FoldError.isInstance(error) || error.code === 'STORE.READ_FAILED') throw error;
      lostRecords.set(foldId, 'damaged');
    }
  }
  const parents = parentsOf(records);
  for (const [foldId, how] of lostRecords) {
    const nesting = ancestors(parents, foldId);
    const cost = `${foldId} cannot be peeked${nesting.length > 0 ? `, nor can the fold(s) nesting it (${nesting.join(', ')}), which leave the window` : ''}`;
    if (how === 'missing')
      report.problems.push({
        key: `session/${sessionId}/fold/${foldId}`,
        code: 'STORE.NOT_FOUND',
        message: `session ${sessionId} lists fold ${foldId} but the ${store.name} store has no record of it; costs: ${cost}; \`pi-fold repair <store> --session ${sessionId}\` names it as lost and keeps the rest`,
      });
    else report.notes.push(`session ${sessionId}: the damaged record of fold ${foldId} costs: ${cost}`);
  }
  for (const record of records.values()) await auditRecordEdges(store, sessionId, record, listed, report);
  for (const lost of state.lostFolds ?? [])
    report.notes.push(`session ${sessionId} already names fold ${lost.foldId} as lost: ${lost.reason}`);
}

/** A record's children must be listed too, and each blob it names must be there. */
async function auditRecordEdges(
  store: FoldStore,
  sessionId: string,
  record: FoldRecord,
  listed: ReadonlySet<string>,
  report: GraphAuditReport,
): Promise<void> {
  for (const part of record.parts) {
    if (part.kind === 'fold') {
      if (!listed.has(part.foldId))
        report.problems.push({
          key: `session/${sessionId}/fold/${record.id}`,
          code: 'STATE.CORRUPT',
          message: `session ${sessionId}: fold ${record.id} nests fold ${part.foldId}, which the state does not list; costs: ${record.id} cannot stand in the window`,
        });
      continue;
    }
    if (await store.hasBlob(part.sha256)) continue;
    report.problems.push({
      key: `blob/${part.sha256}`,
      code: 'STORE.NOT_FOUND',
      message: `session ${sessionId}: fold ${record.id} needs blob ${part.sha256} (entry ${part.entryId}), which the ${store.name} store does not hold; costs: ${record.id} cannot be peeked or expanded, its bytes are lost to the store`,
    });
  }
}

/** Commits the session's request log says landed folds (0 when the store keeps no log, or it cannot be read). */
export async function landedCommits(store: FoldStore, sessionId: string): Promise<number> {
  if (store.capabilities?.requestLog !== true || store.readRequestLog === undefined) return 0;
  const rows = await store.readRequestLog(sessionId).catch(() => []);
  return rows.filter((row) => row.kind === 'commit' && row.foldsLanded > 0).length;
}

function parentsOf(records: ReadonlyMap<string, FoldRecord>): Map<string, string> {
  const parents = new Map<string, string>();
  for (const record of records.values())
    for (const part of record.parts) if (part.kind === 'fold') parents.set(part.foldId, record.id);
  return parents;
}

function ancestors(parents: ReadonlyMap<string, string>, foldId: string): string[] {
  const chain: string[] = [];
  for (let parent = parents.get(foldId); parent !== undefined && !chain.includes(parent); parent = parents.get(parent))
    chain.push(parent);
  return chain;
}
