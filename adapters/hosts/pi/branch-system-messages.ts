import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { type EntryLookup, entriesAppendedSince } from './appended-entries.ts';

/** A message of Pi's own `system` role: Pi's types before 0.8x do not know it. */
export type SystemMessage = { readonly role: 'system'; readonly timestamp?: number };

export interface PlacedSystemMessage {
  readonly message: SystemMessage;
  /** Its place among the session context's entries: conversation messages before it have lower ones. */
  readonly position: number;
}

/** What the branch says about system messages: each one with its place, and every context entry's place. */
export interface BranchSystemMessages {
  readonly placed: readonly PlacedSystemMessage[];
  readonly positionById: ReadonlyMap<string, number>;
}

/** The part of Pi's session manager the index reads: the leaf, entries by id, and the whole branch. */
export interface BranchWalk extends EntryLookup {
  getLeafId(): string | null;
  getBranch(): SessionEntry[];
}

/**
 * The system messages of the context Pi builds from the branch, read once per request at the
 * cost of what was appended since the last read. Between two requests a branch almost always
 * just grows, and new entries after the latest compaction only add places (and perhaps a
 * system message) at the end. A `/tree` jump, a new compaction or a first read walks the whole
 * branch again, so a read always equals `contextSystemMessages(walk.getBranch())`.
 */
export class BranchSystemIndex {
  private leafId: string | null | undefined;
  private placed: PlacedSystemMessage[] = [];
  private positionById = new Map<string, number>();

  read(walk: BranchWalk): BranchSystemMessages {
    const leafId = walk.getLeafId();
    if (leafId !== this.leafId) {
      const appended = entriesAppendedSince(walk, leafId, this.leafId);
      if (appended === undefined || appended.some(isCompaction)) this.reset(contextSystemMessages(walk.getBranch()));
      else for (const entry of appended) addEntry(entry, true, this.placed, this.positionById);
      this.leafId = leafId;
    }
    return { placed: this.placed, positionById: this.positionById };
  }

  private reset(read: { placed: PlacedSystemMessage[]; positionById: Map<string, number> }): void {
    this.placed = read.placed;
    this.positionById = read.positionById;
  }
}

export function isSystem(message: AgentMessage): boolean {
  return (message as { role: string }).role === 'system';
}

function isCompaction(entry: SessionEntry): boolean {
  return entry.type === 'compaction';
}

/** Gives `entry` the next place, and records its system message (or compaction snapshot) when asked. */
function addEntry(
  entry: SessionEntry,
  includeSystem: boolean,
  placed: PlacedSystemMessage[],
  positionById: Map<string, number>,
): void {
  const position = positionById.size;
  positionById.set(entry.id, position);
  if (!includeSystem) return;
  if (entry.type === 'message' && isSystem(entry.message))
    placed.push({ message: entry.message as unknown as SystemMessage, position });
  if (entry.type === 'compaction') {
    const snapshot = (entry as { systemMessage?: SystemMessage }).systemMessage;
    if (snapshot !== undefined) placed.push({ message: snapshot, position });
  }
}

/**
 * The system messages of the context Pi builds from `branch`, and each context entry's place.
 * Without a compaction that is the branch itself. After one, Pi starts from the latest
 * compaction (its snapshot of the system state, then its summary), then the entries it kept,
 * whose own system messages the snapshot replaces, then everything after it.
 */
export function contextSystemMessages(branch: readonly SessionEntry[]): {
  placed: PlacedSystemMessage[];
  positionById: Map<string, number>;
} {
  const placed: PlacedSystemMessage[] = [];
  const positionById = new Map<string, number>();
  const add = (entry: SessionEntry, includeSystem: boolean) => addEntry(entry, includeSystem, placed, positionById);
  let compactionAt = branch.length - 1;
  while (compactionAt >= 0 && branch[compactionAt]!.type !== 'compaction') compactionAt -= 1;
  if (compactionAt < 0) {
    for (const entry of branch) add(entry, true);
    return { placed, positionById };
  }
  const compaction = branch[compactionAt] as Extract<SessionEntry, { type: 'compaction' }>;
  add(compaction, true);
  const keptFrom = branch.findIndex((entry, index) => index < compactionAt && entry.id === compaction.firstKeptEntryId);
  if (keptFrom >= 0) for (let index = keptFrom; index < compactionAt; index += 1) add(branch[index]!, false);
  for (let index = compactionAt + 1; index < branch.length; index += 1) add(branch[index]!, true);
  return { placed, positionById };
}
