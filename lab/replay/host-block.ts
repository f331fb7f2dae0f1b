import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { RecordedSession } from '../transcripts/recorded-session.ts';

/**
 * What the recording's host sent besides the transcript (its system prompt, tool schemas,
 * project instructions), which a replay cannot see: the file holds the conversation, not the
 * request. A replay stands it in as a fixed block of that many tokens at the end of the
 * system prompt, so every arm carries it on every request, as the recorded session did. It
 * can never be folded, and leaving it out would make every arm look cheaper, folding most.
 */
export interface HostBlock {
  /** Tokens the block adds to every request (the lab's tokenizer). */
  readonly tokens: number;
  /** The text appended to the system prompt ('' when no block is added). */
  readonly text: string;
  /** One sentence saying how the size was found. */
  readonly note: string;
}

/**
 * Each recorded request's prompt as its provider counted it (fresh input, cache reads and
 * cache writes), in response order; undefined where the response has no usage or was billed
 * nothing (an aborted or local turn tells nothing about the prompt).
 */
export function recordedPromptTokens(session: Pick<RecordedSession, 'responses'>): (number | undefined)[] {
  return session.responses.map((response) => {
    const usage = response.usage;
    if (usage === undefined) return undefined;
    const tokens = usage.input + usage.cacheRead + usage.cacheWrite;
    return tokens > 0 ? tokens : undefined;
  });
}

/**
 * Size the block: the first recorded request's prompt tokens, in lab tokens (divided by the
 * recorder's `tokenScale`), less what the replay sends for that same request without a block
 * (`replayedFirstTokens`). The first request is the one the two agree on best: nothing has
 * been compacted, folded or re-read yet.
 */
export function calibrateHostBlock(
  recordedFirstTokens: number | undefined,
  replayedFirstTokens: number | undefined,
  tokenScale = 1,
): HostBlock {
  if (recordedFirstTokens === undefined || replayedFirstTokens === undefined) {
    return { tokens: 0, text: '', note: 'host block: none (the recording has no usage to size it from)' };
  }
  const tokens = Math.max(0, Math.round(recordedFirstTokens / tokenScale) - replayedFirstTokens);
  const how = `the first recorded request held ${recordedFirstTokens.toLocaleString('en-US')} prompt tokens, the replay sends ${replayedFirstTokens.toLocaleString('en-US')} for it`;
  return {
    tokens,
    text: hostBlockText(tokens),
    note: `host block: ${tokens.toLocaleString('en-US')} tokens on every request, for what the recorded host sent besides the transcript (${how})`,
  };
}

const WORDS = ['host', 'context', 'the', 'recorded', 'session', 'sent', 'before', 'its', 'conversation'];

/** A deterministic text of exactly `tokens` lab tokens (0 gives ''). */
export function hostBlockText(tokens: number): string {
  if (tokens <= 0) return '';
  const text = (words: number): string => {
    const parts: string[] = [];
    for (let index = 0; index < words; index += 1) {
      parts.push(index % 16 === 15 ? `${WORDS[index % WORDS.length]}.\n` : `${WORDS[index % WORDS.length]} `);
    }
    return parts.join('').trimEnd();
  };
  // Each word is about one token: search the word count whose text has exactly `tokens`.
  let low = 1;
  let high = tokens * 2;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (encode(text(middle)).length < tokens) low = middle + 1;
    else high = middle;
  }
  return text(low);
}
