import { FoldError } from '../../core/fold-error.ts';
import { verifiedBlobText } from '../../core/store/verified-reads.ts';
import type { BriefProvenance, FoldKind, FoldOrigin, FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { RequestLogCommitV1, RequestLogRequestV1 } from '../../ports/request-log.ts';

/** One fold as the viewer shows it: its record's facts and its parts, one level. */
export interface ViewedFold {
  readonly id: string;
  readonly kind: FoldKind;
  readonly origin: FoldOrigin;
  readonly provenance: BriefProvenance;
  readonly brief: string;
  readonly epoch: number;
  readonly entryCount: number;
  readonly sourceChars: number;
  readonly sourceSha256: string;
  readonly parentId: string | null;
  /** Raw entries (by the SHA-256 of their bytes) and child folds, in transcript order. */
  readonly parts: readonly ({ readonly entryId: string; readonly sha256: string } | { readonly foldId: string })[];
}

/** One spilled item (docs/behaviour.md B6.2) as the request log names it, and the fold that now holds its entry. */
export interface ViewedSpill {
  readonly id: string;
  readonly entryId: string;
  readonly sha256: string;
  readonly bytes: number;
  readonly headBytes: number;
  readonly tailBytes: number;
  /** The request whose window first showed it. */
  readonly request: number;
  /** The innermost fold whose raw entries include the spilled entry, when one does. */
  readonly foldId?: string;
}

/** Everything a session's page shows, read from the store only. */
export interface ViewerSession {
  readonly sessionId: string;
  readonly storeName: string;
  readonly requests: readonly RequestLogRequestV1[];
  readonly commits: readonly RequestLogCommitV1[];
  /** Roots first in commit order (cut stalest first, so in transcript order), each followed by its subtree. */
  readonly folds: readonly ViewedFold[];
  /** The exact text of every raw entry a fold covers, by SHA-256, verified when the view was read. */
  readonly sources: Readonly<Record<string, string>>;
  /** Every item spilled to evidence, once, in the order the windows first showed them. */
  readonly spills: readonly ViewedSpill[];
  /** Why part of the history is missing (a store without a request log, an older session). */
  readonly notes: readonly string[];
}

/**
 * Read one session for the viewer: its state, fold records, request log and the exact,
 * verified bytes of every folded entry. Reads only, through the FoldStore port; a blob that
 * fails its SHA-256 check stops the view with the store's named error (nothing unverified is
 * ever shown, docs/behaviour.md I2).
 */
export async function readViewerSession(store: FoldStore, sessionId: string): Promise<ViewerSession> {
  const state = await store.loadState(sessionId);
  const records = await store.listFolds(sessionId);
  if (state === undefined && records.length === 0) {
    const known = store.listSessions === undefined ? [] : await store.listSessions();
    throw new FoldError(
      'STORE.NOT_FOUND',
      `${store.name} store has no session ${JSON.stringify(sessionId)}${known.length > 0 ? ` (sessions: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''})` : ''}`,
      { details: { sessionId } },
    );
  }
  const notes: string[] = [];
  const log =
    store.capabilities?.requestLog === true && store.readRequestLog !== undefined
      ? await store.readRequestLog(sessionId)
      : undefined;
  if (log === undefined) notes.push(`the ${store.name} store keeps no request log, so the chart is empty`);
  else if (log.length === 0)
    notes.push('no request was logged for this session (it predates the request log, or made no request)');
  const requests = (log ?? []).filter((row): row is RequestLogRequestV1 => row.kind === 'request');
  const commits = (log ?? []).filter((row): row is RequestLogCommitV1 => row.kind === 'commit');
  const order = new Map((state?.foldIds ?? []).map((foldId, position) => [foldId, position]));
  const folds = forestOrder(records, order);
  const sources: Record<string, string> = {};
  for (const fold of folds) {
    for (const part of fold.parts) {
      if ('sha256' in part && sources[part.sha256] === undefined)
        sources[part.sha256] = await verifiedBlobText(store, part.sha256);
    }
  }
  return {
    sessionId,
    storeName: store.name,
    requests,
    commits,
    folds,
    sources,
    spills: spillsOf(requests, folds),
    notes,
  };
}

/**
 * The spills the request log names, each once (a reopened session lists its spills again), with the
 * fold holding each.
 */
function spillsOf(requests: readonly RequestLogRequestV1[], folds: readonly ViewedFold[]): ViewedSpill[] {
  const foldOfEntry = new Map<string, string>();
  for (const fold of folds)
    for (const part of fold.parts) if ('entryId' in part) foldOfEntry.set(part.entryId, fold.id);
  const seen = new Set<string>();
  const spills: ViewedSpill[] = [];
  for (const row of requests) {
    for (const spill of row.spills ?? []) {
      if (seen.has(spill.id)) continue;
      seen.add(spill.id);
      const foldId = foldOfEntry.get(spill.entryId);
      spills.push({ ...spill, request: row.request, ...(foldId === undefined ? {} : { foldId }) });
    }
  }
  return spills;
}

/** Every fold once: each root (in commit order) followed depth-first by its children. */
function forestOrder(records: readonly FoldRecord[], order: ReadonlyMap<string, number>): ViewedFold[] {
  const byId = new Map(records.map((record) => [record.id, record]));
  const parentOf = new Map<string, string>();
  for (const record of records)
    for (const part of record.parts) if (part.kind === 'fold') parentOf.set(part.foldId, record.id);
  const rank = (record: FoldRecord) => order.get(record.id) ?? Number.MAX_SAFE_INTEGER;
  const roots = records
    .filter((record) => !parentOf.has(record.id))
    .sort((a, b) => a.epoch - b.epoch || rank(a) - rank(b) || (a.id < b.id ? -1 : 1));
  const result: ViewedFold[] = [];
  const visit = (record: FoldRecord) => {
    result.push(viewed(record, parentOf.get(record.id) ?? null));
    for (const part of record.parts) {
      const child = part.kind === 'fold' ? byId.get(part.foldId) : undefined;
      if (child !== undefined) visit(child);
    }
  };
  for (const root of roots) visit(root);
  return result;
}

function viewed(record: FoldRecord, parentId: string | null): ViewedFold {
  return {
    id: record.id,
    kind: record.kind,
    origin: record.origin,
    provenance: record.provenance,
    brief: record.brief,
    epoch: record.epoch,
    entryCount: record.entryCount,
    sourceChars: record.sourceChars,
    sourceSha256: record.sourceSha256,
    parentId,
    parts: record.parts.map((part) =>
      part.kind === 'entry' ? { entryId: part.entryId, sha256: part.sha256 } : { foldId: part.foldId },
    ),
  };
}
