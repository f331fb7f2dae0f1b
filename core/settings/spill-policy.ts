import { FoldError } from '../fold-error.ts';
import { refuseUnknownSettings } from './settings-keys.ts';

/**
 * When an item is spilled at ingestion and how much of it stays in the window (docs/behaviour.md B6.2,
 * `docs/behaviour.md`). Set whole, like the thresholds: the two numbers only make sense together.
 */
export interface SpillPolicy {
  /** A tool result or one tool-call argument above this many UTF-8 bytes is spilled. @default 16384 */
  readonly thresholdBytes: number;
  /** Bytes of a spilled item the window keeps: its head (60 %) and its tail (40 %). @default 4096 */
  readonly keepBytes: number;
}

/**
 * Chosen by replaying the shared real transcripts at the window they had (docs/spill.md has
 * the table): 16 KiB spills the few results that carry most of the bytes, and keeping 4 KiB
 * of each leaves the agent the start and the end of what it read.
 */
export const DEFAULT_SPILL_POLICY: SpillPolicy = Object.freeze({ thresholdBytes: 16_384, keepBytes: 4_096 });

/** Below this a spill would show too little of an item to tell what it is. */
export const SPILL_MIN_KEEP_BYTES = 512;
/** The pointer line costs about this much; a spill must save at least that again. */
export const SPILL_MIN_SAVING_BYTES = 1_024;
/**
 * Above this a single kept item could take a large share of a small window; the promise
 * that no item ends a session needs the window form to stay small.
 */
export const SPILL_MAX_THRESHOLD_BYTES = 262_144;

const SPILL_KEYS = ['thresholdBytes', 'keepBytes'] as const;

/** Validate `settings.spill`; an impossible policy is refused by name, never clamped. */
export function resolveSpillPolicy(input: unknown): SpillPolicy {
  if (input === undefined) return DEFAULT_SPILL_POLICY;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('spill must be an object with thresholdBytes and keepBytes');
  }
  const record = input as Record<string, unknown>;
  refuseUnknownSettings(record, SPILL_KEYS, 'spill');
  const missing = SPILL_KEYS.filter((key) => record[key] === undefined);
  if (missing.length > 0) throw invalid(`spill is set whole: missing ${missing.join(', ')}`);
  const { thresholdBytes, keepBytes } = record;
  if (!Number.isInteger(thresholdBytes) || (thresholdBytes as number) > SPILL_MAX_THRESHOLD_BYTES) {
    throw invalid(
      `spill.thresholdBytes must be an integer of at most ${SPILL_MAX_THRESHOLD_BYTES}, got ${String(thresholdBytes)}`,
      'spill.thresholdBytes',
    );
  }
  if (!Number.isInteger(keepBytes) || (keepBytes as number) < SPILL_MIN_KEEP_BYTES) {
    throw invalid(
      `spill.keepBytes must be an integer of at least ${SPILL_MIN_KEEP_BYTES}, got ${String(keepBytes)}`,
      'spill.keepBytes',
    );
  }
  if ((keepBytes as number) + SPILL_MIN_SAVING_BYTES > (thresholdBytes as number)) {
    throw invalid(
      `spill.keepBytes (${String(keepBytes)}) must be at least ${SPILL_MIN_SAVING_BYTES} below spill.thresholdBytes (${String(thresholdBytes)}): a spill would otherwise save less than its pointer costs`,
      'spill.keepBytes',
    );
  }
  return Object.freeze({ thresholdBytes: thresholdBytes as number, keepBytes: keepBytes as number });
}

function invalid(message: string, option = 'spill'): FoldError {
  return new FoldError('SETTINGS.INVALID', message, { details: { option } });
}
