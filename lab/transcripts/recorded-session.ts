import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

/** Which recorder wrote a transcript file. */
export type TranscriptFormat = 'pi-v1' | 'pi-v3' | 'claude-code' | 'codex' | 'codex-legacy' | 'chat-trajectory';

/** One model response as recorded: where it sits and what the provider billed. */
export interface RecordedResponse {
  /** Index in `entries` of the assistant entry this response produced. */
  readonly entryIndex: number;
  readonly usage:
    | {
        readonly input: number;
        readonly cacheRead: number;
        readonly cacheWrite: number;
        readonly output: number;
        /** Of `cacheWrite`, the tokens written with the long (1-hour) cache lifetime. */
        readonly cacheWriteLong?: number;
      }
    | undefined;
  /** The model id the recorder wrote for this response, when it wrote one. */
  readonly model?: string;
  /** When the recorder wrote the response (ms since the epoch), when it wrote a time: a replay's clock (`replay-clock.ts`). */
  readonly time?: number;
}

/**
 * A compaction the recorder's own host ran (Pi's `compaction` entry, Claude Code's compact
 * summary): from `fromEntry` on, the model was sent `summary` and the entries from
 * `firstKeptEntry` on instead of the whole history.
 */
export interface HostCompaction {
  readonly fromEntry: number;
  readonly firstKeptEntry: number;
  readonly summary: string;
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
  /** Those whose summary the file holds, in order (`lab/replay/needs/recorded-windows.ts` scores them). */
  readonly hostCompactions?: readonly HostCompaction[];
  readonly malformedLines: readonly SkippedLine[];
  readonly linesRead: number;
}

/**
 * The model that gave most of a session's responses (the first one seen on a tie), or
 * undefined when the recorder wrote none: the model whose window and prices a replay uses.
 */
export function dominantModel(responses: readonly RecordedResponse[]): string | undefined {
  const counts = new Map<string, number>();
  for (const response of responses)
    if (response.model !== undefined) counts.set(response.model, (counts.get(response.model) ?? 0) + 1);
  let best: string | undefined;
  for (const [model, count] of counts) if (best === undefined || count > counts.get(best)!) best = model;
  return best;
}

/** A recorder's timestamp (ISO text or ms since the epoch) as ms since the epoch; undefined when it is neither. */
export function recordedTime(value: unknown): number | undefined {
  const time = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isFinite(time) ? time : undefined;
}
