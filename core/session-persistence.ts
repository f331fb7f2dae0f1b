import type { FoldWarning } from '../ports/fold-warning.ts';
import type { SessionState } from './session-state.ts';
import { refusedSaveWarning } from './store-outage.ts';

/** What saving reads and writes: the decisions (their revision) and the store. */
export type PersistTarget = Pick<SessionState, 'sessionId' | 'foldStore' | 'memory' | 'snapshot'>;

/** Save the session's state. The revision moves only once the store has it: a refused save changes nothing. */
export async function persistState(target: PersistTarget): Promise<void> {
  const revision = target.memory.revision + 1;
  await target.foldStore.saveState(target.sessionId, { ...target.snapshot(), revision });
  target.memory.revision = revision;
}

/**
 * Save state during a projection. A refused save must not stop the request (its window is
 * already decided and every fold in it is stored): it is tried again at the next decision.
 * Resolves to whether the store took it.
 */
export function persistOrWarn(
  target: PersistTarget & Pick<SessionState, 'storeOutage'>,
  warnings: FoldWarning[],
): Promise<boolean> {
  // Handed on as it is (no async frame of its own): most requests save, and each frame is a promise more.
  return target.storeOutage.attempt(() => persistState(target), warnings, refusedSaveWarning, true);
}
