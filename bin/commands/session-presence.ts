import { FoldError } from '../../core/fold-error.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/**
 * Refuse a `--session` the store does not hold, naming the sessions it does, the way `view`
 * does: a misspelt id must not read as "nothing to do". A session counts as held when the
 * store lists it or any fold record is filed under it (its state may be the part that is lost).
 * @throws FoldError `STORE.NOT_FOUND`
 */
export async function assertSessionHeld(store: FoldStore, sessionId: string, foldRecordCount: number): Promise<void> {
  if (foldRecordCount > 0 || store.listSessions === undefined) return;
  const known = [...(await store.listSessions())].sort();
  if (known.includes(sessionId)) return;
  throw new FoldError(
    'STORE.NOT_FOUND',
    `${store.name} store has no session ${JSON.stringify(sessionId)} (${known.length === 0 ? 'it holds no session' : `sessions: ${known.slice(0, 20).join(', ')}${known.length > 20 ? ', …' : ''}`})`,
    { details: { sessionId } },
  );
}
