import type { RecordedSession } from '../transcripts/recorded-session.ts';

/** A recorded prompt this much smaller than the largest before it was a compaction. */
export const COMPACTED_SHARE = 0.8;

/** Where the recording first compacted, and the largest prompt it sent before. */
export interface RecordedCompaction {
  /** The response whose prompt first shrank: the recorder compacted before it. */
  readonly beforeResponse: number;
  /** The largest recorded prompt before that, in the recorder's tokens: its threshold, at most. */
  readonly largestPromptTokens: number;
}

/** The recording's first compaction among its first `responseCount` responses, read from its usage. */
export function firstRecordedCompaction(
  recording: Pick<RecordedSession, 'responses'>,
  responseCount: number,
): RecordedCompaction | undefined {
  let largest = 0;
  const responses = recording.responses.slice(0, responseCount);
  for (const [position, response] of responses.entries()) {
    const usage = response.usage;
    if (usage === undefined) continue;
    const tokens = usage.input + usage.cacheRead + usage.cacheWrite;
    if (tokens === 0) continue;
    if (tokens < COMPACTED_SHARE * largest) return { beforeResponse: position, largestPromptTokens: largest };
    largest = Math.max(largest, tokens);
  }
  return undefined;
}

/**
 * The reserve that makes Pi's compaction fire where the recorder's did. Pi compacts once the
 * last response's tokens pass its window less `reserveTokens`; the recorder (Claude Code by
 * its own rule, a Pi with other settings by Pi's) compacted after its largest prompt. A native
 * arm that waited for Pi's default would carry a longer history for every request between the
 * two points and bill more than the user paid. Undefined when the recording never compacted,
 * or did so above the window the replay gives Pi.
 */
export function recordedCompactionReserve(
  compaction: RecordedCompaction | undefined,
  contextWindow: number,
): number | undefined {
  if (compaction === undefined) return undefined;
  const reserve = contextWindow - compaction.largestPromptTokens;
  return reserve > 0 ? reserve : undefined;
}

/** Pi's own compaction reserve (its `compaction.reserveTokens` default). */
export const PI_DEFAULT_RESERVE_TOKENS = 16_384;
/** A native arm's prompt runs a little above the recording's; its threshold stays this far above the recorded largest. */
const NEVER_COMPACTED_HEADROOM = 1.05;
/** The least reserve given to Pi: its summary's budget is a share of it. */
const LEAST_RESERVE_TOKENS = 1_024;

/**
 * The reserve for a native arm replaying a recording that never compacted, though its largest
 * prompt passed Pi's default threshold in the replay's window: the recorder's own threshold was
 * above that prompt, so Pi's is put above it too (with some headroom). A native that compacted
 * at Pi's default would carry a shorter history than the user's for every later request.
 * Undefined when the recording compacted (`recordedCompactionReserve`) or never came near.
 */
export function neverCompactedReserve(
  recording: Pick<RecordedSession, 'responses'>,
  responseCount: number,
  contextWindow: number,
): { readonly reserveTokens: number; readonly largestPromptTokens: number } | undefined {
  if (firstRecordedCompaction(recording, responseCount) !== undefined) return undefined;
  let largest = 0;
  for (const response of recording.responses.slice(0, responseCount)) {
    const usage = response.usage;
    if (usage !== undefined) largest = Math.max(largest, usage.input + usage.cacheRead + usage.cacheWrite);
  }
  if (largest <= contextWindow - PI_DEFAULT_RESERVE_TOKENS) return undefined;
  const reserveTokens = Math.max(LEAST_RESERVE_TOKENS, contextWindow - Math.ceil(largest * NEVER_COMPACTED_HEADROOM));
  return { reserveTokens, largestPromptTokens: largest };
}
