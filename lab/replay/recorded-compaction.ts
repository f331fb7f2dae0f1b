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
