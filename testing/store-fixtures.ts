import { randomBytes } from 'node:crypto';
import type { EngineState, FoldRecord } from '../ports/fold-records.ts';

/** A valid fold record with a random id, as the engine would write one. */
export function sampleFoldRecord(overrides: Partial<FoldRecord> = {}): FoldRecord {
  return {
    schemaVersion: 1,
    id: `fold_${randomBytes(12).toString('hex')}`,
    kind: 'tool',
    origin: 'runtime',
    firstEntryId: 'entry-1',
    lastEntryId: 'entry-2',
    parts: [
      { kind: 'entry', entryId: 'entry-1', sha256: randomBytes(32).toString('hex'), chars: 120 },
      { kind: 'entry', entryId: 'entry-2', sha256: randomBytes(32).toString('hex'), chars: 4_000 },
    ],
    sourceSha256: randomBytes(32).toString('hex'),
    sourceChars: 4_120,
    entryCount: 2,
    brief: 'read_file src/index.ts → 4,000 chars · ünïcödé ✓',
    provenance: 'deterministic',
    toolCalls: [{ toolCallId: 'call-1', toolName: 'read_file' }],
    epoch: 1,
    ...overrides,
  };
}

/** A valid engine state of `sessionId` at `revision`. */
export function sampleEngineState(sessionId: string, revision = 1): EngineState {
  return {
    schemaVersion: 1,
    sessionId,
    revision,
    foldIds: [`fold_${randomBytes(12).toString('hex')}`],
    expanded: [],
    marks: [],
    pins: ['fold_000000000000000000000001'],
    holds: [],
    inserts: [{ kind: 'notice', afterEntryId: 'entry-2', sequence: 0, text: 'folded 1 span' }],
    ephemeralPeeks: [],
    calibration: [{ chars: 4_000, tokens: 1_000 }],
    counters: {
      requests: revision,
      pureAppends: revision,
      rewrites: 0,
      unattributedRewrites: 0,
      providerCacheMisses: 0,
      commits: 0,
      foldsLanded: 0,
    },
    epoch: revision,
  };
}
