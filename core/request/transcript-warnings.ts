import type { FoldWarning } from '../../ports/fold-warning.ts';

/**
 * A host that hands the same entries back under new ids (fresh random ids per request, say)
 * is followed by place and bytes (docs/behaviour.md B6.6): its folds stay on the entries
 * and nothing folds again. But the ids pi-fold names in peeks and searches are then the
 * first ones it saw, which the host no longer uses, so the host is told once.
 */
export function renamedIdsWarning(sessionId: string, renamedEntries: number): FoldWarning {
  return {
    code: 'TRANSCRIPT.IDS_RENAMED',
    message: `pi-fold [TRANSCRIPT.IDS_RENAMED]: session ${sessionId} handed over ${renamedEntries} entr${renamedEntries === 1 ? 'y' : 'ies'} whose bytes are unchanged under new ids. pi-fold keeps them as the entries it already holds (same place, same bytes), so nothing folds again, but the entry ids it names in peeks and searches are the first ones it was given. Give each entry an id that stays the same from request to request. Shown once per session.`,
    details: { sessionId, renamedEntries },
  };
}
