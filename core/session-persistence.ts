import type { EngineState } from '../ports/fold-records.ts';
import type { FoldWarning } from '../ports/shared-types.ts';
import type { SessionState } from './session-state.ts';
import { refusedSaveWarning } from './store-outage.ts';

/** What saving reads and writes: the decisions (their revision), the store, and the writes a save must follow. */
export type PersistTarget = Pick<SessionState, 'sessionId' | 'foldStore' | 'memory' | 'snapshot' | 'spills' | 'laterSave'>;

/**
 * Save the session's state. The revision moves only once the store has it: a refused save
 * changes nothing. A save deferred earlier lands first (states reach the store in order), and
 * every artifact started before is durable first: a state never names evidence a crash could
 * still lose (docs/behaviour.md B6.2).
 */
export async function persistState(target: PersistTarget): Promise<void> {
  await target.laterSave.settled();
  await writeState(target, target.snapshot());
}

async function writeState(target: PersistTarget, state: EngineState): Promise<void> {
  await target.spills.evidence.durable();
  const revision = target.memory.revision + 1;
  await target.foldStore.saveState(target.sessionId, { ...state, revision });
  target.memory.revision = revision;
}

/**
 * Save state during a projection. A refused save must not stop the request (its window is
 * already decided and every fold in it is stored): it is tried again at the next decision.
 */
export async function persistOrWarn(target: PersistTarget & Pick<SessionState, 'storeOutage'>, warnings: FoldWarning[]): Promise<void> {
  await target.storeOutage.attempt(() => persistState(target), warnings, refusedSaveWarning, true);
}

/**
 * Save state during a projection without waiting for the artifacts still being written: the
 * state as it is now is saved once they are durable, off the request path. Used only when no
 * fold landed (a commit's state is written before its window goes out). A refusal is reported
 * with the next request.
 */
export function persistAfterEvidence(target: PersistTarget & Pick<SessionState, 'storeOutage'>): void {
  const state = target.snapshot();
  const later = target.laterSave;
  later.schedule(() => target.storeOutage.attempt(() => writeState(target, state), later.warnings, refusedSaveWarning, true).then(() => undefined));
}
