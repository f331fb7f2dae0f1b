import type { ViewerSession } from './viewer-session.ts';

/** `1 commit`, `2 commits`: a count with its noun, singular for one. */
export function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** What a written page holds, in the words `pi-fold view` and `/fold-view` print. */
export function describeViewCounts(view: Pick<ViewerSession, 'requests' | 'commits' | 'folds'>): string {
  return `${counted(view.requests.length, 'request')}, ${counted(view.commits.length, 'commit')}, ${counted(view.folds.length, 'fold')}`;
}

/** The page of a session that has made no request yet: nothing is stored for it, and nothing is folded. */
export function emptyViewerSession(sessionId: string, storeName: string): ViewerSession {
  return {
    sessionId,
    storeName,
    requests: [],
    commits: [],
    folds: [],
    sources: {},
    spills: [],
    notes: ['this session has made no request yet, so nothing is folded; the page fills in once it has'],
  };
}
