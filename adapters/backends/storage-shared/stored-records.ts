import { FoldError } from '../../../core/fold-error.ts';
import { migrateEngineState } from '../../../core/state/engine-state-migration.ts';
import { foldRecordProblem } from '../../../core/store/record-shapes.ts';
import { sha256Hex, stableStringify } from '../../../core/util/hashing.ts';
import type { EngineState, FoldRecord } from '../../../ports/fold-records.ts';

/** Version of the envelope around persisted records (not of the records themselves). */
export const ENVELOPE_VERSION = 1;

/** Fold record schema versions this runtime can read. */
const READABLE_FOLD_SCHEMA_VERSIONS: readonly number[] = [1];

/**
 * A persisted fold record or engine state, wrapped with the SHA-256 of its stable JSON so a
 * flipped byte in a record is caught on read and by `verify`, exactly like a blob.
 */
export interface RecordEnvelope<Kind extends 'fold' | 'state', Body> {
  readonly envelopeVersion: typeof ENVELOPE_VERSION;
  readonly kind: Kind;
  readonly sessionId: string;
  /** SHA-256 of `stableStringify(body)`. */
  readonly sha256: string;
  readonly body: Body;
}

export type FoldEnvelope = RecordEnvelope<'fold', FoldRecord>;
export type StateEnvelope = RecordEnvelope<'state', EngineState>;

/** Where a record was read from, for error messages: the store's name and the key or path. */
export interface RecordLocation {
  readonly storeName: string;
  readonly key: string;
}

/** Wrap a fold record for storage. The stable JSON is also what immutability compares. */
export function wrapFold(sessionId: string, record: FoldRecord): FoldEnvelope {
  return {
    envelopeVersion: ENVELOPE_VERSION,
    kind: 'fold',
    sessionId,
    sha256: sha256Hex(stableStringify(record)),
    body: record,
  };
}

export function wrapState(sessionId: string, state: EngineState): StateEnvelope {
  return {
    envelopeVersion: ENVELOPE_VERSION,
    kind: 'state',
    sessionId,
    sha256: sha256Hex(stableStringify(state)),
    body: state,
  };
}

/**
 * Check an envelope read back from a store and return its fold record, refusing a corrupt
 * envelope (`STORE.HASH_MISMATCH`), a record of another session or id (`STATE.CORRUPT`) and
 * a schema version this runtime cannot read (`STORE.SCHEMA_VERSION`).
 */
export function unwrapFold(raw: unknown, sessionId: string, foldId: string, location: RecordLocation): FoldRecord {
  const envelope = checkEnvelope(raw, 'fold', sessionId, location);
  const record = envelope.body as FoldRecord;
  const shapeProblem = READABLE_FOLD_SCHEMA_VERSIONS.includes(record.schemaVersion)
    ? foldRecordProblem(record)
    : undefined;
  if (shapeProblem !== undefined) {
    throw new FoldError(
      'STATE.CORRUPT',
      `${location.storeName} store: fold record ${location.key} is not well formed (${shapeProblem})`,
      { details: { key: location.key, foldId } },
    );
  }
  if (record.id !== foldId) {
    throw new FoldError(
      'STATE.CORRUPT',
      `${location.storeName} store: ${location.key} holds fold ${String(record.id)}, not ${foldId}`,
      { details: { key: location.key, foldId } },
    );
  }
  if (!READABLE_FOLD_SCHEMA_VERSIONS.includes(record.schemaVersion)) {
    throw new FoldError(
      'STORE.SCHEMA_VERSION',
      `${location.storeName} store: fold record ${location.key} has schema version ${String(record.schemaVersion)}; this runtime reads ${READABLE_FOLD_SCHEMA_VERSIONS.join(', ')}`,
      {
        details: { key: location.key, schemaVersion: String(record.schemaVersion) },
      },
    );
  }
  return record;
}

/** Check a state envelope and migrate its body to the current engine-state schema. */
export function unwrapState(raw: unknown, sessionId: string, location: RecordLocation): EngineState {
  const envelope = checkEnvelope(raw, 'state', sessionId, location);
  return migrateEngineState(envelope.body, sessionId);
}

/** Parse envelope JSON text, naming the key when it is not JSON at all (a torn or edited file). */
export function parseEnvelopeText(text: string, location: RecordLocation): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new FoldError(
      'STORE.HASH_MISMATCH',
      `${location.storeName} store: ${location.key} is not valid JSON (corrupted record)`,
      { cause: error, details: { key: location.key } },
    );
  }
}

function checkEnvelope(
  raw: unknown,
  kind: 'fold' | 'state',
  sessionId: string,
  location: RecordLocation,
): RecordEnvelope<typeof kind, unknown> {
  const envelope = raw as Partial<RecordEnvelope<typeof kind, unknown>> | null;
  if (
    typeof envelope !== 'object' ||
    envelope === null ||
    typeof envelope.body !== 'object' ||
    envelope.body === null ||
    typeof envelope.sha256 !== 'string'
  ) {
    throw new FoldError(
      'STORE.HASH_MISMATCH',
      `${location.storeName} store: ${location.key} is not a pi-fold ${kind} envelope (corrupted record)`,
      { details: { key: location.key } },
    );
  }
  if (envelope.envelopeVersion !== ENVELOPE_VERSION) {
    throw new FoldError(
      'STORE.SCHEMA_VERSION',
      `${location.storeName} store: ${location.key} has envelope version ${String(envelope.envelopeVersion)}; this runtime reads ${ENVELOPE_VERSION}`,
      {
        details: { key: location.key, envelopeVersion: String(envelope.envelopeVersion) },
      },
    );
  }
  const actual = sha256Hex(stableStringify(envelope.body));
  if (actual !== envelope.sha256) {
    throw new FoldError(
      'STORE.HASH_MISMATCH',
      `${location.storeName} store: ${kind} record ${location.key} hashes to ${actual}, not its recorded ${envelope.sha256}`,
      {
        details: { key: location.key, sha256: envelope.sha256, actual },
      },
    );
  }
  if (envelope.kind !== kind || envelope.sessionId !== sessionId) {
    throw new FoldError(
      'STATE.CORRUPT',
      `${location.storeName} store: ${location.key} is a ${String(envelope.kind)} record of session ${String(envelope.sessionId)}, expected a ${kind} record of ${sessionId}`,
      {
        details: { key: location.key, sessionId },
      },
    );
  }
  return envelope as RecordEnvelope<typeof kind, unknown>;
}
