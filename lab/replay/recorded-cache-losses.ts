import type { RecordedSession } from '../transcripts/recorded-session.ts';
import { COMPACTED_SHARE } from './recorded-compaction.ts';

/**
 * A shortfall this small is no loss: every request leaves its newest tokens unwritten (the
 * part after its last cache breakpoint), and providers round what they read (OpenAI to 128
 * tokens). It is also the smallest prefix Anthropic and OpenAI cache at all.
 */
export const LOSS_TOLERANCE_TOKENS = 1_024;

/** One recorded request at which the provider held less of the conversation than the recorder sent it before. */
export interface RecordedCacheLoss {
  /** The response (0-based), which is also the agent request every arm replays it as. */
  readonly response: number;
  /** Tokens the provider still served from cache, in the recorder's tokens (0: cold). */
  readonly keptTokens: number;
  /** Tokens of the previous prompt it no longer held: read from cache, had it held them. */
  readonly movedTokens: number;
  /** Seconds since the response before, when both carry a time. */
  readonly gapSeconds: number | undefined;
}

/** A recorded request the recorder rewrote itself, which read less than its previous prompt. */
export interface RecorderRewrite {
  readonly response: number;
  readonly kind: 'compaction' | 'prompt change';
  readonly movedTokens: number;
}

/** What a recording's usage shows of its provider's cache. */
export interface RecordedCacheHistory {
  readonly losses: readonly RecordedCacheLoss[];
  /** Where the recorder's own rewrite explains the shortfall: not replayed as a loss. */
  readonly rewrites: readonly RecorderRewrite[];
}

/**
 * Read where the recording's provider lost its cache. After the first billed request, a
 * request whose cache read fell short of the previous prompt by more than
 * `LOSS_TOLERANCE_TOKENS` found less than the recorder had sent. Two causes are the
 * recorder's own and are left out, since each arm meets its own rewrites where they fall:
 *
 * - a compaction: the prompt shrank under COMPACTED_SHARE of the one before;
 * - a prompt change: the prompt shrank less than that, and it still read part of its cache.
 *   A prompt that did not grow was not a pure append: the recorder changed something inside
 *   it (Claude Code does so at the start of a user turn), and its read stops at the change.
 *
 * Everything else is the provider's: a pure append whose read fell short (it kept only the
 * host's fixed block, or nothing), and a request that read nothing at all though its prompt
 * was not compacted. A rewrite inside the conversation leaves the system prompt and tools
 * readable, so reading nothing is a loss whatever the prompt's size did.
 */
export function recordedCacheHistory(responses: RecordedSession['responses']): RecordedCacheHistory {
  const losses: RecordedCacheLoss[] = [];
  const rewrites: RecorderRewrite[] = [];
  let previousPrompt: number | undefined;
  let previousTime: number | undefined;
  responses.forEach((response, position) => {
    const usage = response.usage;
    if (usage === undefined) return;
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
    if (prompt === 0) return;
    if (previousPrompt !== undefined) {
      const movedTokens = previousPrompt - usage.cacheRead;
      if (movedTokens > LOSS_TOLERANCE_TOKENS) {
        if (prompt < COMPACTED_SHARE * previousPrompt)
          rewrites.push({ response: position, kind: 'compaction', movedTokens });
        else if (prompt < previousPrompt && usage.cacheRead > 0)
          rewrites.push({ response: position, kind: 'prompt change', movedTokens });
        else
          losses.push({
            response: position,
            keptTokens: usage.cacheRead,
            movedTokens,
            gapSeconds:
              previousTime === undefined || response.time === undefined
                ? undefined
                : (response.time - previousTime) / 1000,
          });
      }
    }
    previousPrompt = prompt;
    previousTime = response.time;
  });
  return { losses, rewrites };
}

/**
 * The losses as every arm replays them: agent request → lab tokens of prefix the provider
 * still held (0: nothing). The recorder's count becomes the lab's through the tokenizer ratio
 * (`token-scale.ts`); the fixed block every arm sends first is the same, so a loss that kept
 * only it keeps it for every arm.
 */
export function replayedCacheLosses(
  losses: readonly RecordedCacheLoss[],
  responseCount: number,
  tokenScale: number,
): ReadonlyMap<number, number> {
  const kept = new Map<number, number>();
  for (const loss of losses)
    if (loss.response < responseCount) kept.set(loss.response, Math.floor(loss.keptTokens / tokenScale));
  return kept;
}

/** The notes' lines on what the recording shows: its provider's losses, and the rewrites left out. */
export function describeCacheHistory(
  history: RecordedCacheHistory,
  responseCount: number,
  idleSeconds: number,
): string[] {
  const losses = history.losses.filter((loss) => loss.response < responseCount);
  const rewrites = history.rewrites.filter((rewrite) => rewrite.response < responseCount);
  const notes: string[] = [];
  const tokens = (count: number): string => count.toLocaleString('en-US');
  const sum = (items: readonly { movedTokens: number }[]): number =>
    items.reduce((total, item) => total + item.movedTokens, 0);
  if (losses.length > 0) {
    const cold = losses.filter((loss) => loss.keptTokens === 0).length;
    const idle = losses.filter((loss) => loss.gapSeconds !== undefined && loss.gapSeconds > idleSeconds).length;
    notes.push(
      `provider cache losses: ${losses.length} of ${responseCount} recorded requests found less in the provider's cache than the recorder had sent it, with no rewrite of the recorder's to explain it (${cold} read nothing, ${losses.length - cold} only a prefix); they moved ${tokens(sum(losses))} tokens from cache reads to fresh input. Every arm's cache holds no more than the recording's did at those requests (${idle} of them came after an idle gap past the cache's ${idleSeconds} s lifetime, which the clock expires anyway)`,
    );
  } else notes.push('provider cache losses: none (every pure append read its previous prompt from cache)');
  if (rewrites.length > 0) {
    const compactions = rewrites.filter((rewrite) => rewrite.kind === 'compaction');
    const changes = rewrites.filter((rewrite) => rewrite.kind === 'prompt change');
    notes.push(
      `recorder rewrites not replayed as losses: ${compactions.length} compaction(s) (${tokens(sum(compactions))} tokens), ${changes.length} prompt change(s) that shrank the prompt and read only part of it (${tokens(sum(changes))} tokens); each arm meets its own rewrites`,
    );
  }
  return notes;
}
