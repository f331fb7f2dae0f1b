/**
 * "0 bytes lost", measured: after an arm's run, every byte that left its window is checked
 * against the session's own entries. A fold arm's folds must give back each covered entry
 * exactly (its part's SHA-256 is the original's, the stored blob is the original byte for
 * byte, the record's source hash is the originals' in order: docs/behaviour.md I2), and each
 * spilled item's evidence must be the original item byte for byte (B6.2). What Pi's own
 * compaction took out of the context (entries before the latest compaction's first kept
 * entry) is lost unless a verified fold holds it: that is native's contrast.
 */
import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { canonicalBytes } from '../../adapters/hosts/pi/message-entries.ts';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex, stableStringify, utf8Length } from '../../core/util/hashing.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { SpillPointer } from '../../ports/projection-sink.port.ts';
import type { ByteAccounting } from '../report/lab-records.ts';

/** One message entry of the session as the host holds it: the original the audit compares with. */
export interface OriginalEntry {
  readonly id: string;
  /** The entry's canonical bytes (what the Pi adapter hands the engine for it). */
  readonly bytes: string;
  readonly message: AgentMessage;
}

/** The session's side of the audit: its entries, and what Pi's compaction took out of the context. */
export interface SessionOriginals {
  /** Message entries of the branch, by id, in branch order. */
  readonly entries: ReadonlyMap<string, OriginalEntry>;
  /** Entries before the latest compaction's first kept entry: no longer in Pi's context. */
  readonly outOfContext: ReadonlySet<string>;
  readonly compactions: number;
}

/** A spill met in the arm's windows: its pointer and the entry it replaced a part of. */
export interface SeenSpill {
  readonly pointer: SpillPointer;
  readonly entryId: string;
}

/** What the audit reads. `folds` and `spills` are a fold arm's stores; absent for other arms. */
export interface ByteAuditInput {
  readonly sessionId: string;
  readonly originals: SessionOriginals;
  readonly folds?: { readonly store: FoldStore; readonly records: readonly FoldRecord[] };
  readonly spills?: { readonly store: EvidenceStore; readonly seen: Iterable<SeenSpill> };
}

/** Problems kept in the report: enough to find the first broken fold, not a second copy of the store. */
const PROBLEMS_KEPT = 10;

/**
 * The originals of a Pi session's branch, and what its latest compaction left out of the
 * context, as Pi builds the context (`buildSessionContext`): the entries from the compaction's
 * first kept entry up to the compaction, and everything after it. The first kept entry may be
 * of any type, so positions are taken on the whole branch, not on its messages.
 */
export function sessionOriginals(branch: readonly SessionEntry[]): SessionOriginals {
  const entries = new Map<string, OriginalEntry>();
  let compactions = 0;
  let latestCompaction = -1;
  for (const [position, entry] of branch.entries()) {
    if (entry.type === 'message')
      entries.set(entry.id, { id: entry.id, bytes: canonicalBytes(entry.message), message: entry.message });
    if (entry.type === 'compaction') {
      compactions += 1;
      latestCompaction = position;
    }
  }
  const outOfContext = new Set<string>();
  if (latestCompaction >= 0) {
    const { firstKeptEntryId } = branch[latestCompaction] as Extract<SessionEntry, { type: 'compaction' }>;
    const firstKept = branch.findIndex(
      (entry, position) => position < latestCompaction && entry.id === firstKeptEntryId,
    );
    const keptFrom = firstKept < 0 ? latestCompaction : firstKept;
    for (let position = 0; position < keptFrom; position += 1) {
      const entry = branch[position]!;
      if (entry.type === 'message') outOfContext.add(entry.id);
    }
  }
  return { entries, outOfContext, compactions };
}

/** Check every folded entry and spilled item against the originals; count what cannot be had back exactly. */
export async function auditBytes(input: ByteAuditInput): Promise<ByteAccounting> {
  const { originals } = input;
  const problems: string[] = [];
  const note = (problem: string): void => {
    if (problems.length < PROBLEMS_KEPT) problems.push(problem);
  };
  const records = input.folds?.records ?? [];
  const folded =
    input.folds === undefined
      ? new Map<string, EntryCheck>()
      : await checkFoldedEntries(input.folds.store, records, originals.entries, note);
  const lostEntries = new Set<string>();
  let lostBytes = 0;
  let foldedBytes = 0;
  for (const [entryId, check] of folded) {
    foldedBytes += check.bytes;
    if (!check.recoverable) {
      lostEntries.add(entryId);
      lostBytes += check.bytes;
    }
  }
  let compactedBytes = 0;
  for (const entryId of originals.outOfContext) {
    const bytes = utf8Length(originals.entries.get(entryId)!.bytes);
    compactedBytes += bytes;
    // Out of the context is lost unless a verified fold gives it back.
    if (folded.get(entryId)?.recoverable === true || lostEntries.has(entryId)) continue;
    lostEntries.add(entryId);
    lostBytes += bytes;
  }
  const spillCheck =
    input.spills === undefined
      ? { bytes: 0, count: 0, lostBytes: 0 }
      : await checkSpills(input.sessionId, input.spills.store, input.spills.seen, originals.entries, note);
  let transcriptBytes = 0;
  for (const entry of originals.entries.values()) transcriptBytes += utf8Length(entry.bytes);
  return {
    transcriptBytes,
    lostBytes: lostBytes + spillCheck.lostBytes,
    lostEntries: lostEntries.size,
    foldedBytes,
    foldedEntries: folded.size,
    folds: records.length,
    spilledBytes: spillCheck.bytes,
    spills: spillCheck.count,
    compactions: originals.compactions,
    compactedBytes,
    compactedEntries: originals.outOfContext.size,
    problems,
  };
}

interface EntryCheck {
  /** UTF-8 bytes of the original (the record's chars when the original is gone). */
  readonly bytes: number;
  recoverable: boolean;
}

/**
 * Each covered entry once: its part's hash against the original's, the stored blob against the
 * original's bytes. Then each record's source hash against its originals in order (at every
 * depth): a record that does not add up loses every entry it covers.
 */
async function checkFoldedEntries(
  store: FoldStore,
  records: readonly FoldRecord[],
  originals: ReadonlyMap<string, OriginalEntry>,
  note: (problem: string) => void,
): Promise<Map<string, EntryCheck>> {
  const checks = new Map<string, EntryCheck>();
  for (const record of records) {
    for (const part of record.parts) {
      if (part.kind !== 'entry' || checks.has(part.entryId)) continue;
      const original = originals.get(part.entryId);
      if (original === undefined) {
        note(`fold ${record.id}: entry ${part.entryId} is not in the session`);
        checks.set(part.entryId, { bytes: part.chars, recoverable: false });
        continue;
      }
      const problem = await entryProblem(store, part.sha256, original.bytes);
      if (problem !== undefined) note(`fold ${record.id}: entry ${part.entryId}: ${problem}`);
      checks.set(part.entryId, { bytes: utf8Length(original.bytes), recoverable: problem === undefined });
    }
  }
  const byId = new Map(records.map((record) => [record.id, record]));
  for (const record of records) {
    const covered = coveredEntryIds(record, byId);
    const source = covered?.map((entryId) => originals.get(entryId)?.bytes);
    const sourceSha256 =
      source === undefined || source.some((bytes) => bytes === undefined)
        ? undefined
        : sha256Hex(source.map((bytes) => `${bytes}\n`).join(''));
    if (sourceSha256 === record.sourceSha256) continue;
    note(
      `fold ${record.id}: ${covered === undefined ? 'a child fold has no record' : 'its source hash is not the hash of the original entries in order'}`,
    );
    for (const entryId of covered ?? directEntryIds(record)) {
      const check = checks.get(entryId);
      if (check !== undefined) check.recoverable = false;
    }
  }
  return checks;
}

/** Why an entry cannot be had back exactly from `store`, or undefined when it can. */
async function entryProblem(store: FoldStore, sha256: string, original: string): Promise<string | undefined> {
  if (sha256Hex(original) !== sha256) return `its part's sha256 ${sha256.slice(0, 12)}… is not the original's`;
  let stored: Uint8Array;
  try {
    stored = await store.getBlob(sha256);
  } catch (error) {
    if (FoldError.isInstance(error)) return `the stored source cannot be read (${error.code})`;
    throw error;
  }
  return Buffer.from(original, 'utf8').equals(Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength))
    ? undefined
    : 'the stored source differs from the original';
}

/** Every entry a fold covers at every depth, in order; undefined when a child has no record. */
function coveredEntryIds(
  record: FoldRecord,
  byId: ReadonlyMap<string, FoldRecord>,
  seen = new Set<string>(),
): string[] | undefined {
  if (seen.has(record.id)) return undefined;
  seen.add(record.id);
  const ids: string[] = [];
  for (const part of record.parts) {
    if (part.kind === 'entry') {
      ids.push(part.entryId);
      continue;
    }
    const child = byId.get(part.foldId);
    const childIds = child === undefined ? undefined : coveredEntryIds(child, byId, seen);
    if (childIds === undefined) return undefined;
    ids.push(...childIds);
  }
  return ids;
}

function directEntryIds(record: FoldRecord): string[] {
  return record.parts.flatMap((part) => (part.kind === 'entry' ? [part.entryId] : []));
}

/** Each spill once: its artifact must hash to its pointer, have its size, and be an item of the original entry byte for byte. */
async function checkSpills(
  sessionId: string,
  store: EvidenceStore,
  seen: Iterable<SeenSpill>,
  originals: ReadonlyMap<string, OriginalEntry>,
  note: (problem: string) => void,
): Promise<{ bytes: number; count: number; lostBytes: number }> {
  let bytes = 0;
  let count = 0;
  let lostBytes = 0;
  const checked = new Set<string>();
  for (const { pointer, entryId } of seen) {
    if (checked.has(pointer.id)) continue;
    checked.add(pointer.id);
    count += 1;
    bytes += pointer.bytes;
    const problem = await spillProblem(sessionId, store, pointer, originals.get(entryId));
    if (problem === undefined) continue;
    note(`spill ${pointer.id} of entry ${entryId}: ${problem}`);
    lostBytes += pointer.bytes;
  }
  return { bytes, count, lostBytes };
}

async function spillProblem(
  sessionId: string,
  store: EvidenceStore,
  pointer: SpillPointer,
  original: OriginalEntry | undefined,
): Promise<string | undefined> {
  if (original === undefined) return 'its entry is not in the session';
  let artifact: Buffer;
  try {
    const stored = await store.get(sessionId, pointer.sha256);
    artifact = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  } catch (error) {
    if (FoldError.isInstance(error)) return `the evidence cannot be read (${error.code})`;
    throw error;
  }
  if (artifact.length !== pointer.bytes || sha256Hex(artifact) !== pointer.sha256)
    return 'the evidence does not match its pointer';
  return spillableItems(original.message).some((item) => Buffer.from(item, 'utf8').equals(artifact))
    ? undefined
    : 'the evidence is no item of the original entry';
}

/**
 * The items of a message a spill can stand for: a tool result's text (its text parts, as the
 * adapter reads them), a tool call's whole arguments, and each of its top-level values.
 */
function spillableItems(message: AgentMessage): string[] {
  if (message.role === 'toolResult')
    return [message.content.map((block) => (block.type === 'text' ? block.text : `[${block.type}]`)).join('\n')];
  if (message.role !== 'assistant') return [];
  const items: string[] = [];
  for (const block of message.content) {
    if (block.type !== 'toolCall') continue;
    const args: unknown = block.arguments ?? {};
    items.push(stableStringify(args));
    if (typeof args === 'object' && args !== null && !Array.isArray(args)) {
      for (const value of Object.values(args)) items.push(typeof value === 'string' ? value : stableStringify(value));
    } else if (typeof args === 'string') items.push(args);
  }
  return items;
}
