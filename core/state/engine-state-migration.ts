import type { EngineState } from '../../ports/fold-records.ts';
import { FoldError } from '../fold-error.ts';
import { resolveSpillPolicy } from '../settings/spill-policy.ts';
import { engineStateElementProblem } from '../store/record-shapes.ts';
import { checkStoredRequestContext } from './stored-request-context.ts';

/** The schema version of the state record this runtime writes and reads. */
export const ENGINE_STATE_SCHEMA_VERSION = 1;

/**
 * Bring a stored state record to the current schema, or refuse it by name. Only version 1
 * exists so far; a future version adds its step here with a fixture test.
 */
export function migrateEngineState(raw: unknown, sessionId: string): EngineState {
  if (typeof raw !== 'object' || raw === null) {
    throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId} is not an object`, {
      details: { sessionId },
    });
  }
  const record = raw as Partial<EngineState> & { schemaVersion?: unknown };
  if (record.schemaVersion !== ENGINE_STATE_SCHEMA_VERSION) {
    throw new FoldError(
      'STORE.SCHEMA_VERSION',
      `engine state of session ${sessionId} has schema version ${String(record.schemaVersion)}; this runtime reads version ${ENGINE_STATE_SCHEMA_VERSION}`,
      {
        details: { sessionId, schemaVersion: String(record.schemaVersion) },
      },
    );
  }
  const arrays = ['foldIds', 'expanded', 'marks', 'pins', 'holds', 'inserts', 'ephemeralPeeks', 'calibration'] as const;
  for (const key of arrays) {
    if (!Array.isArray(record[key])) {
      throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId}: ${key} must be an array`, {
        details: { sessionId, field: key },
      });
    }
  }
  if (
    typeof record.counters !== 'object' ||
    record.counters === null ||
    typeof record.revision !== 'number' ||
    typeof record.epoch !== 'number'
  ) {
    throw new FoldError(
      'STATE.CORRUPT',
      `engine state of session ${sessionId}: counters, revision and epoch are required`,
      { details: { sessionId } },
    );
  }
  const elementProblem = engineStateElementProblem(record as Record<string, unknown>);
  if (elementProblem !== undefined) {
    throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId}: ${elementProblem}`, {
      details: { sessionId },
    });
  }
  if (record.spill !== undefined) {
    try {
      resolveSpillPolicy(record.spill);
    } catch (error) {
      throw new FoldError(
        'STATE.CORRUPT',
        `engine state of session ${sessionId}: its spill policy is not valid (${error instanceof Error ? error.message : String(error)})`,
        { details: { sessionId, field: 'spill' } },
      );
    }
  }
  // Added to version 1 as an optional field: a state saved before it existed reads as it is.
  if (record.requestContext !== undefined) checkStoredRequestContext(record.requestContext, sessionId);
  if (record.sessionId !== sessionId) {
    throw new FoldError(
      'STATE.CORRUPT',
      `engine state belongs to session ${String(record.sessionId)}, not ${sessionId}`,
      { details: { sessionId } },
    );
  }
  return record as EngineState;
}
