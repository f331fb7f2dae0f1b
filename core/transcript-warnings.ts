import type { FoldWarning } from '../ports/fold-warning.ts';

/**
 * A host that hands the same entries back under new ids (fresh random ids per request, say)
 * cannot be folded for long: folds are keyed by the entries they cover, so every such
 * request folds the conversation again as new, rewrites the window and leaves a record per
 * fold in the store, none of which gc may collect while the state lists them. Only the host
 * can fix that, so it is told once, with what to change.
 */
export function renamedIdsWarning(sessionId: string, renamedEntries: number, storeName: string): FoldWarning {
  return {
    code: 'TRANSCRIPT.IDS_RENAMED',
    message: `pi-fold [TRANSCRIPT.IDS_RENAMED]: session ${sessionId} handed over ${renamedEntries} entr${renamedEntries === 1 ? 'y' : 'ies'} whose bytes are unchanged under new ids. Folds are keyed by entry id, so they fold again as new entries: the window is rewritten and the ${storeName} store keeps a record for every fold each time. Give each entry an id that stays the same from request to request. Shown once per session.`,
    details: { sessionId, renamedEntries },
  };
}
