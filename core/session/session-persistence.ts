import type { EngineState } from '../../ports/fold-records.ts';
import type { FoldWarning } from '../../ports/fold-warning.ts';
import type { SessionModel } from '../state/session-model.ts';
import type { SessionPorts } from '../state/session-ports.ts';
import { refusedSaveWarning } from '../store/store-outage.ts';
import type { SessionServices } from './session-services.ts';

/** What saving reads and writes: the decisions (their revision) and the store. */
export interface PersistTarget {
  readonly ports: Pick<SessionPorts, 'sessionId' | 'foldStore'>;
  readonly model: Pick<SessionModel, 'memory'>;
  snapshot(): EngineState;
}

/** What saving during a projection also reads: the outage the store may be in. */
export type OutageAwarePersistTarget = PersistTarget & { readonly services: Pick<SessionServices, 'storeOutage'> };

/**
 * The state each session last had in its store (as saved, or as opened). Kept beside the
 * session rather than in it: only saving and closing read it, and a refused action that puts
 * back its decisions must not put this back too.
 */
const savedStates = new WeakMap<PersistTarget, EngineState>();

/** Save the session's state. The revision moves only once the store has it: a refused save changes nothing. */
export async function persistState(target: PersistTarget): Promise<void> {
  const { ports, model } = target;
  const revision = model.memory.revision + 1;
  const state = { ...target.snapshot(), revision };
  await ports.foldStore.saveState(ports.sessionId, state);
  model.memory.revision = revision;
  savedStates.set(target, state);
}

/**
 * Save state during a projection. A refused save must not stop the request (its window is
 * already decided and every fold in it is stored): it is tried again at the next decision.
 * Resolves to whether the store took it.
 */
export function persistOrWarn(target: OutageAwarePersistTarget, warnings: FoldWarning[]): Promise<boolean> {
  // Handed on as it is (no async frame of its own): most requests save, and each frame is a promise more.
  return target.services.storeOutage.attempt(() => persistState(target), warnings, refusedSaveWarning, true);
}

/** The session's state as its store holds it now: called once a session is opened, before any change. */
export function markOpenedState(target: PersistTarget): void {
  savedStates.set(target, target.snapshot());
}

/**
 * Save what the store does not have yet. A request whose only change is its counters (or a
 * provider's count that moved the calibration) writes no state (see `handOut`), so the last
 * of them would be lost when the session closes; closing saves them. A session with nothing
 * unsaved writes nothing. Resolves to whether a save was made.
 */
export async function persistUnsaved(target: OutageAwarePersistTarget, warnings: FoldWarning[]): Promise<boolean> {
  const saved = savedStates.get(target);
  if (saved !== undefined && sameState(saved, target.snapshot())) return false;
  return persistOrWarn(target, warnings);
}

function sameState(a: EngineState, b: EngineState): boolean {
  // Both come from the same `snapshot`, so their keys are in the same order.
  return JSON.stringify({ ...a, revision: 0 }) === JSON.stringify({ ...b, revision: 0 });
}
