import { contentChars } from '../../adapters/hosts/pi/message-entries.ts';
import type { PromptMessage } from '../provider/prefix-cache-simulator.ts';
import type { BilledPrompt } from '../provider/simulated-provider.ts';

const NO_TOKENS = new Uint32Array(0);

/** One agent request of the session the bound schedules. */
export interface BoundRequest {
  /** Transcript entries that exist at this request: the first this many of `BoundTrajectory.entries`. */
  readonly entries: number;
  /** The cache's clock at this request, in seconds. */
  readonly nowSeconds: number;
  /** True when the cache was emptied before this request whatever its age (a replay's recorded cold start). */
  readonly cold: boolean;
  /** Where the provider lost its cache before this request: the lab tokens of prefix it still held (a replay's recorded loss). */
  readonly keptTokens?: number;
  /** Tokens of the reply (as billed): the same whatever the schedule. */
  readonly output: number;
  /**
   * The recorded arm's own window after the fixed block: each entry as the trajectory holds it,
   * and each of pi-fold's own messages (briefs, stubs, notices, receipts) in place with its
   * digest but no tokens. Billed in order, it is the arm's schedule without its overhead.
   * Absent where the window could not be lined up with the projection.
   */
  readonly armWindow?: readonly PromptMessage[];
}

/**
 * A session as the bound sees it: the fixed block every request carries, the transcript's
 * entries in order, each as the window shows it raw (a spilled result as its head, pointer and
 * tail), and the requests. Every schedule the bound weighs sends the fixed block, then the
 * entries from some depth on.
 */
export interface BoundTrajectory {
  /** The system prompt and the tool schemas, as the arm the session was recorded from sent them. */
  readonly fixed: readonly PromptMessage[];
  readonly entries: readonly PromptMessage[];
  /**
   * Chars of each entry as the runtime's floor counts them (docs/behaviour.md B3.2): as Pi's
   * `estimateTokens` reads them, unless the arm said otherwise (`BilledPrompt.readChars`).
   */
  readonly readChars: readonly number[];
  readonly requests: readonly BoundRequest[];
}

/**
 * Builds a `BoundTrajectory` from the prompts an arm's provider billed (`BilledPrompt`). An
 * entry is taken the first time a window shows it, raw or spilled; pi-fold's own messages
 * (briefs, stubs, notices, receipts) are left out, as are folds: the bound's windows carry
 * nothing for what they fold. Where the runtime names no entries (an arm without pi-fold), the
 * window is the transcript and each position is an entry.
 */
export class TrajectoryRecorder {
  private fixed: readonly PromptMessage[] | undefined;
  private readonly entryPosition = new Map<string, number>();
  private readonly entries: PromptMessage[] = [];
  private readonly readChars: number[] = [];
  private readonly requests: BoundRequest[] = [];
  /** Requests whose messages could not be lined up with the runtime's projection. */
  unaligned = 0;

  record(billed: BilledPrompt): void {
    this.fixed ??= billed.prompt.slice(0, 2);
    const messages = billed.prompt.slice(2);
    const ids = billed.entryIds;
    const armWindow: PromptMessage[] = [];
    const aligned = ids === undefined || ids.length === messages.length;
    if (!aligned) this.unaligned += 1;
    else
      messages.forEach((element, position) => {
        const id = ids === undefined ? `#${position}` : ids[position];
        if (id === undefined) {
          armWindow.push({ digest: element.digest, tokens: NO_TOKENS });
          return;
        }
        armWindow.push(element);
        if (this.entryPosition.has(id)) return;
        this.entryPosition.set(id, this.entries.length);
        this.entries.push(element);
        this.readChars.push(billed.readChars?.[position] ?? contentChars(billed.messages[position]!));
      });
    this.requests.push({
      entries: this.entries.length,
      nowSeconds: billed.nowSeconds,
      cold: billed.cold,
      ...(billed.keptTokens === undefined ? {} : { keptTokens: billed.keptTokens }),
      output: billed.output,
      ...(aligned ? { armWindow } : {}),
    });
  }

  trajectory(): BoundTrajectory {
    return {
      fixed: this.fixed ?? [],
      entries: [...this.entries],
      readChars: [...this.readChars],
      requests: [...this.requests],
    };
  }
}
