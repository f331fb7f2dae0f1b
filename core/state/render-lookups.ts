import type { WindowInsertV1 } from '../../ports/fold-records.ts';
import type { EngineMemoryView } from './engine-memory.ts';

/** What a render looks up by key: retired peeks by tool call, and inserts by the entry they follow. */
export interface RenderLookupMaps {
  readonly retiredPeeks: ReadonlyMap<string, string>;
  readonly insertsByAnchor: ReadonlyMap<string, readonly WindowInsertV1[]>;
}

interface BuiltFrom extends RenderLookupMaps {
  readonly peeks: readonly unknown[];
  readonly peekCount: number;
  readonly inserts: readonly unknown[];
  readonly insertCount: number;
}

/**
 * The render's lookups, built again only when their lists changed. Inserts (one receipt or
 * notice per commit) grow with the session, and every request renders at least its appended
 * entries, so rebuilding these maps each time would make a request cost the session's
 * commits. `EngineMemory` only ever replaces these lists or pushes to them, never edits one in
 * place, so a list and its length say whether it changed.
 */
export class RenderLookups {
  /** How many times the maps were built: read by tests. */
  builds = 0;
  private built: BuiltFrom | undefined;

  of(memory: Pick<EngineMemoryView, 'ephemeralPeeks' | 'inserts'>): RenderLookupMaps {
    const { ephemeralPeeks, inserts } = memory;
    const known = this.built;
    if (
      known !== undefined &&
      known.peeks === ephemeralPeeks &&
      known.peekCount === ephemeralPeeks.length &&
      known.inserts === inserts &&
      known.insertCount === inserts.length
    )
      return known;
    this.builds += 1;
    const retiredPeeks = new Map<string, string>();
    for (const peek of ephemeralPeeks) if (peek.retired) retiredPeeks.set(peek.toolCallId, peek.foldId);
    const insertsByAnchor = new Map<string, WindowInsertV1[]>();
    for (const insert of inserts) {
      const list = insertsByAnchor.get(insert.afterEntryId) ?? [];
      list.push(insert);
      insertsByAnchor.set(insert.afterEntryId, list);
    }
    this.built = {
      peeks: ephemeralPeeks,
      peekCount: ephemeralPeeks.length,
      inserts,
      insertCount: inserts.length,
      retiredPeeks,
      insertsByAnchor,
    };
    return this.built;
  }
}
