import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

/** Which recorder wrote a transcript file. */
export type TranscriptFormat = 'pi-v1' | 'pi-v3' | 'claude-code';

/** One model response as recorded: where it sits and what the provider billed. */
export interface RecordedResponse {
  /** Index in `entries` of the assistant entry this response produced. */
  readonly entryIndex: number;
  readonly usage: { readonly input: number; readonly cacheRead: number; readonly cacheWrite: number; readonly output: number } | undefined;
}

/** A line that could not be used, with why. Counted and reported, never fatal. */
export interface SkippedLine {
  readonly line: number;
  readonly reason: string;
}

/** A real session turned into the engine's entries, ready to replay. */
export interface RecordedSession {
  readonly format: TranscriptFormat;
  readonly path: string;
  /** The active branch as the model saw it, oldest first. */
  readonly entries: readonly TranscriptEntry[];
  /** Every model response, in order: the requests a replay re-issues. */
  readonly responses: readonly RecordedResponse[];
  /** Compactions the original session went through. */
  readonly compactions: number;
  readonly malformedLines: readonly SkippedLine[];
  readonly linesRead: number;
}
