import type { SessionEntry } from '@mariozechner/pi-coding-agent';

/** Past this many new entries a reader starts afresh: walking them one by one would cost more. */
const MAX_APPENDED_ENTRIES = 2_000;

/** The part of Pi's session manager a walk back from the leaf needs. */
export interface EntryLookup {
  getEntry(id: string): SessionEntry | undefined;
}

/**
 * The entries from `leafId` back to (not including) `sinceLeafId`, oldest first; undefined
 * when the branch did not just grow from there (no earlier read, a jump elsewhere, or more
 * than a reader should walk one by one).
 */
export function entriesAppendedSince(
  lookup: EntryLookup,
  leafId: string | null,
  sinceLeafId: string | null | undefined,
): SessionEntry[] | undefined {
  if (sinceLeafId === undefined) return undefined;
  const appended: SessionEntry[] = [];
  let id = leafId;
  while (id !== sinceLeafId) {
    if (id === null || appended.length > MAX_APPENDED_ENTRIES) return undefined;
    const entry = lookup.getEntry(id);
    if (entry === undefined) return undefined;
    appended.push(entry);
    id = entry.parentId;
  }
  return appended.reverse();
}
