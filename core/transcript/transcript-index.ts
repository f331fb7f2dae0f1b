/** Room core/transcript/: the branch as the engine knows it, entries indexed, checked and grouped into units. */

import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { FoldError } from '../fold-error.ts';
import { sha256Hex } from '../util/hashing.ts';
import { EntryRenames } from './entry-renames.ts';
import { checkClaimedSha256, validateEntry } from './entry-validation.ts';
import { assignUnit, type Unit } from './transcript-units.ts';

export type { Unit, UnitKind } from './transcript-units.ts';

/** The tool results a window keeps raw because they answer no open call (TranscriptIndex.strayResults). */
export interface StrayResults {
  readonly count: number;
  /** Window chars they occupy. */
  readonly chars: number;
  readonly firstEntryId: string | undefined;
}

/** What changed since the previous read. */
export interface IngestResult {
  /** First entry index that differs from what was known, when the host rewrote history. */
  readonly divergedAt: number | undefined;
  /** Index of the first entry that was not known before this read. */
  readonly appendedFrom: number;
  /**
   * Entries this read handed back in place with their bytes unchanged under another id: a
   * host renaming entries, not rewriting them (docs/behaviour.md B6.6). 0 otherwise.
   */
  readonly renamedEntries: number;
}

/**
 * The engine's incremental view of the transcript. Each entry is validated, hashed and
 * assigned to a unit exactly once, so a request costs what was appended, not the session.
 */
export class TranscriptIndex {
  readonly entries: TranscriptEntry[] = [];
  readonly shas: string[] = [];
  /** Chars each entry occupies in the window: its bytes, or its spilled form (docs/behaviour.md B6.2). */
  readonly windowChars: number[] = [];
  /**
   * Chars the model reads of the entries before each position (`readCharsBefore[p]` sums
   * positions [0, p)): an entry's window chars, or fewer when the host says its content is
   * smaller (bookkeeping in the bytes, such as usage and timestamps, is not read). Kept as a
   * running sum so the working-set floor is found by a binary search, not a walk per request.
   */
  readonly readCharsBefore: number[] = [0];
  /**
   * Moves each time entries already held are dropped (a rewrite of history): anything worked
   * out from positions survives appends, never a truncation.
   */
  generation = 0;
  readonly units: Unit[] = [];
  /** Unit index of every entry. */
  readonly unitOf: number[] = [];
  private readonly positions = new Map<string, number>();
  /** Entries the host renamed: held under the id first seen, handed back under the host's. */
  readonly renames = new EntryRenames();
  // Entries are immutable, so a hash computed once stays true for the entry's id forever.
  private readonly shaById = new Map<string, string>();

  /** Position of the newest assistant entry, or -1. */
  lastAssistantPosition = -1;

  /**
   * Held positions compared with a whole branch so far. A whole-branch read checks every
   * shared position (a pointer compare each); an `appended` read checks none. Counted so
   * tests can show what a request costs without timing it.
   */
  comparedPositions = 0;

  /**
   * @param measure chars an entry shows in the window; units are sized by it, so the cutting
   * and the commit arithmetic count what folding a unit would really free.
   */
  constructor(private readonly measure: (entry: TranscriptEntry) => number = (entry) => entry.bytes.length) {}
  // Where each tool call's result landed; checked on read because truncation may stale it.
  private readonly resultPositions = new Map<string, number>();

  /** Position of the result entry answering `toolCallId`, if it is on the branch. */
  resultPositionOf(toolCallId: string): number | undefined {
    const position = this.resultPositions.get(toolCallId);
    if (position === undefined) return undefined;
    const entry = this.entries[position];
    return entry !== undefined && entry.role === 'toolResult' && entry.toolCallId === toolCallId ? position : undefined;
  }

  get length(): number {
    return this.entries.length;
  }

  /**
   * Tool results that answer no call just before them (a host file that lost the call, or a
   * result that came after something else): kept raw as protected units, since folding
   * them would strand them (docs/behaviour.md I3). Walked only to name them in a refusal.
   */
  strayResults(): StrayResults {
    let count = 0;
    let chars = 0;
    let firstEntryId: string | undefined;
    for (const unit of this.units) {
      if (unit.kind !== 'orphan-result') continue;
      count += 1;
      chars += unit.chars;
      firstEntryId ??= this.entries[unit.first]?.id;
    }
    return { count, chars, firstEntryId };
  }

  /** The id the engine knows an entry by, given that id or the host's current one for it. */
  knownIdOf(entryId: string): string {
    return this.renames.knownIdOf(entryId) ?? entryId;
  }

  /** Position of an entry, named by the id the engine knows it by or by the host's current one. */
  positionOf(entryId: string): number | undefined {
    const position = this.positions.get(entryId);
    if (position !== undefined || this.renames.size === 0) return position;
    const knownId = this.renames.knownIdOf(entryId);
    return knownId === undefined ? undefined : this.positions.get(knownId);
  }

  /** Whether unit `index` is closed: complete and not the newest unit. */
  isClosed(unitIndex: number): boolean {
    const unit = this.units[unitIndex];
    return unit?.complete === true && unitIndex < this.units.length - 1;
  }

  /**
   * Bring the index up to date with the host's current branch. Validates every new entry
   * before changing anything, so a bad entry leaves the index as it was.
   */
  ingest(next: readonly TranscriptEntry[]): IngestResult {
    let divergedAt: number | undefined;
    const known = this.entries.length;
    const shared = Math.min(known, next.length);
    // Every shared position is compared, not only the newest: a host whose ids do not name
    // their whole prefix (a Pi extension ahead of pi-fold rewriting an old message gives it a
    // new id while the newest keeps its own) must still be seen as a change. Entries the
    // host reuses compare by identity, so this costs a pointer check per entry.
    const held = this.entries;
    // Known id and new host id of each entry this read hands back renamed (B6.6), kept
    // until every new entry has been validated.
    const renamed: [string, string][] = [];
    let position = 0;
    for (; position < shared; position += 1) {
      const incoming = next[position]!;
      const entry = held[position]!;
      if (incoming === entry || incoming.id === this.renames.hostIdOf(entry.id)) continue;
      if (incoming.bytes === entry.bytes && !this.idNamesAnotherEntry(incoming.id, position)) {
        renamed.push([entry.id, incoming.id]);
        continue;
      }
      divergedAt = position;
      break;
    }
    this.comparedPositions += divergedAt === undefined ? shared : position + 1;
    if (divergedAt === undefined && next.length < known) divergedAt = next.length;
    const keep = divergedAt ?? known;
    const incomingIds = new Set<string>(renamed.map(([, hostId]) => hostId));
    for (let position = keep; position < next.length; position += 1) {
      const entry = next[position]!;
      this.checkNewEntry(entry, position, this.idNamesAnotherEntry(entry.id, keep, keep), incomingIds);
    }
    for (const [knownId, hostId] of renamed) this.renames.rename(knownId, hostId);
    if (divergedAt !== undefined) this.truncate(divergedAt);
    for (let position = keep; position < next.length; position += 1) this.append(next[position]!);
    return { divergedAt, appendedFrom: keep, renamedEntries: renamed.length };
  }

  /**
   * Whether `id` already names an entry held before `before` other than the one at
   * `position`, as the id the engine knows it by or as the host's current id.
   */
  private idNamesAnotherEntry(id: string, position: number, before = this.entries.length): boolean {
    const known = this.positions.get(id);
    if (known !== undefined && known !== position && known < before) return true;
    const knownId = this.renames.knownIdOf(id);
    const renamedTo = knownId === undefined ? undefined : this.positions.get(knownId);
    return renamedTo !== undefined && renamedTo !== position && renamedTo < before;
  }

  /**
   * Append entries a source handed as `appended` after `afterEntryId`: nothing before them
   * is compared, so the read costs what it adds. Refused by name when `afterEntryId` is not
   * the newest entry held (the source's idea of the branch is stale); nothing changes then.
   */
  ingestAppended(afterEntryId: string | undefined, added: readonly TranscriptEntry[]): IngestResult {
    const known = this.entries.length;
    const newestKnown = this.entries[known - 1]?.id;
    const newest = newestKnown === undefined ? undefined : this.renames.hostIdOf(newestKnown);
    if (afterEntryId !== newest && afterEntryId !== newestKnown) {
      throw new FoldError(
        'TRANSCRIPT.STALE_READ',
        `the transcript source appended after ${JSON.stringify(String(afterEntryId).slice(0, 80))}, but the newest entry the engine holds is ${JSON.stringify(String(newest).slice(0, 80))}; hand the whole branch instead`,
        {
          details: {
            afterEntryId: afterEntryId === undefined ? null : String(afterEntryId).slice(0, 80),
            newestEntryId: newest ?? null,
          },
        },
      );
    }
    const incomingIds = new Set<string>();
    added.forEach((entry, offset) => {
      const position = known + offset;
      this.checkNewEntry(entry, position, this.idNamesAnotherEntry(entry.id, known), incomingIds);
    });
    for (const entry of added) this.append(entry);
    return { divergedAt: undefined, appendedFrom: known, renamedEntries: 0 };
  }

  /**
   * Validate an entry this read adds, before anything changes: its shape, a claimed SHA-256,
   * and an id that names no other entry (`heldElsewhere`: one held; `incomingIds`: one earlier
   * in this read, to which the entry's id is then added).
   */
  private checkNewEntry(
    entry: TranscriptEntry,
    position: number,
    heldElsewhere: boolean,
    incomingIds: Set<string>,
  ): void {
    validateEntry(entry, position);
    checkClaimedSha256(entry, position, this.shaById.get(entry.id));
    if (heldElsewhere || incomingIds.has(entry.id)) {
      throw new FoldError(
        'TRANSCRIPT.INVALID_ENTRY',
        `entry id "${entry.id}" at position ${position} appears twice in the transcript`,
        { details: { entryId: entry.id, position } },
      );
    }
    incomingIds.add(entry.id);
  }

  private truncate(length: number): void {
    for (let position = length; position < this.entries.length; position += 1) {
      this.positions.delete(this.entries[position]!.id);
      this.renames.forget(this.entries[position]!.id);
    }
    const firstUnitToDrop = length < this.unitOf.length ? this.unitOf[length]! : this.units.length;
    const rebuildFrom = this.units[firstUnitToDrop]?.first ?? length;
    const survivors = this.entries.slice(rebuildFrom, length);
    this.entries.length = rebuildFrom;
    this.shas.length = rebuildFrom;
    this.windowChars.length = rebuildFrom;
    this.readCharsBefore.length = rebuildFrom + 1;
    this.generation += 1;
    this.unitOf.length = rebuildFrom;
    this.units.length = firstUnitToDrop;
    this.lastAssistantPosition = -1;
    for (let position = rebuildFrom - 1; position >= 0; position -= 1) {
      if (this.entries[position]!.role === 'assistant') {
        this.lastAssistantPosition = position;
        break;
      }
    }
    for (const entry of survivors) this.append(entry);
  }

  private append(entry: TranscriptEntry): void {
    const position = this.entries.length;
    let sha = this.shaById.get(entry.id);
    if (sha === undefined) {
      sha = entry.sha256 ?? sha256Hex(entry.bytes);
      this.shaById.set(entry.id, sha);
    }
    this.entries.push(entry);
    this.shas.push(sha);
    const shown = this.measure(entry);
    this.windowChars.push(shown);
    this.readCharsBefore.push(this.readCharsBefore[position]! + Math.min(shown, entry.contentChars ?? shown));
    this.positions.set(entry.id, position);
    if (entry.role === 'assistant') this.lastAssistantPosition = position;
    if (entry.role === 'toolResult' && entry.toolCallId !== undefined)
      this.resultPositions.set(entry.toolCallId, position);
    this.unitOf.push(assignUnit(this.units, entry, position, shown));
  }
}

/** The transcript as the engine indexed it (entries, their hashes and units), read only. */
export interface TranscriptIndexView {
  readonly entries: readonly TranscriptEntry[];
  readonly shas: readonly string[];
  /** Chars each entry occupies in the window (its spilled form when an oversized part was spilled). */
  readonly windowChars: readonly number[];
  /** Chars the model reads of the entries before each position (length + 1 sums, the first 0). */
  readonly readCharsBefore: readonly number[];
  /** Moves when entries already held are dropped (a rewrite of history). */
  readonly generation: number;
  readonly units: readonly Readonly<Unit>[];
  /** Unit index of every entry. */
  readonly unitOf: readonly number[];
  readonly length: number;
  /** Position of the newest assistant entry, or -1. */
  readonly lastAssistantPosition: number;
  positionOf(entryId: string): number | undefined;
  resultPositionOf(toolCallId: string): number | undefined;
  isClosed(unitIndex: number): boolean;
}
