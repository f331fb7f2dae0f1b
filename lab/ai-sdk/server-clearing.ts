import type { Context, Message } from '@mariozechner/pi-ai';

/**
 * Anthropic's server-side tool-result clearing (`clear_tool_uses_20250919`), as the lab's
 * simulated provider applies it before billing. Documented rules (Anthropic, "Context editing",
 * tool result clearing; the AI SDK reaches it as the Anthropic provider's
 * `contextManagement.edits`):
 * - it acts only when the prompt's input tokens exceed `trigger` (default 100,000);
 * - it clears the oldest tool results first and keeps the most recent `keep` tool uses
 *   (default 3); results of `excludeTools` are never cleared;
 * - a cleared result's content becomes placeholder text; the calls stay (`clear_tool_inputs`
 *   defaults to false);
 * - with `clearAtLeast`, an edit that would clear fewer tokens is not applied at all;
 * - the client keeps sending the whole, unedited history.
 * Assumed where Anthropic publishes nothing (docs/vercel-ai-lab.md says so): the edit is a pure
 * function of the request it arrives with, so every request above the trigger clears every
 * result but the last `keep`; the placeholder's wording (`[cleared]`, as LangChain's mirror
 * of this edit writes it).
 */
export interface ServerClearingRules {
  readonly triggerTokens: number;
  readonly keepToolUses: number;
  readonly clearAtLeastTokens?: number;
  readonly excludeTools?: readonly string[];
}

/** The documented defaults. */
export const ANTHROPIC_CLEARING_DEFAULTS: ServerClearingRules = Object.freeze({
  triggerTokens: 100_000,
  keepToolUses: 3,
});

/** The text a cleared result carries. */
export const CLEARED_PLACEHOLDER = '[cleared]';

export interface ClearingOutcome {
  readonly context: Context;
  readonly clearedToolUses: number;
  readonly clearedTokens: number;
}

/**
 * The prompt as the model would see it after the server's edit. `promptTokens` is the whole
 * request's input (what the trigger is compared with); `countTokens` sizes one result.
 */
export function applyServerClearing(
  context: Context,
  promptTokens: number,
  rules: ServerClearingRules,
  countTokens: (text: string) => number,
): ClearingOutcome {
  if (promptTokens <= rules.triggerTokens) return { context, clearedToolUses: 0, clearedTokens: 0 };
  const excluded = new Set(rules.excludeTools ?? []);
  const results = context.messages.flatMap((message, position) =>
    message.role === 'toolResult' && !excluded.has(message.toolName) ? [position] : [],
  );
  const clearable = new Set(results.slice(0, Math.max(0, results.length - rules.keepToolUses)));
  let clearedTokens = 0;
  let clearedToolUses = 0;
  const messages: Message[] = context.messages.map((message, position) => {
    if (!clearable.has(position) || message.role !== 'toolResult') return message;
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    if (text === CLEARED_PLACEHOLDER) return message;
    clearedTokens += Math.max(0, countTokens(text) - countTokens(CLEARED_PLACEHOLDER));
    clearedToolUses += 1;
    return { ...message, content: [{ type: 'text', text: CLEARED_PLACEHOLDER }] };
  });
  if (clearedToolUses === 0 || clearedTokens < (rules.clearAtLeastTokens ?? 0))
    return { context, clearedToolUses: 0, clearedTokens: 0 };
  return { context: { ...context, messages }, clearedToolUses, clearedTokens };
}

/** The window the documented trigger is set against: 100,000 of Claude's 200,000 tokens. */
const DOCUMENTED_WINDOW_TOKENS = 200_000;

/**
 * The rules for a window of `windowTokens`: the documented trigger, but never above the same
 * share of a smaller window (half), so a small preset's prompts can reach it as Claude's do.
 */
export function clearingRulesFor(rules: ServerClearingRules, windowTokens: number): ServerClearingRules {
  const scaled = Math.floor((rules.triggerTokens * windowTokens) / DOCUMENTED_WINDOW_TOKENS);
  return scaled >= rules.triggerTokens ? rules : { ...rules, triggerTokens: scaled };
}
