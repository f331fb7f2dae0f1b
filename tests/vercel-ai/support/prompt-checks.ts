import { canonicalBytes } from '../../../adapters/hosts/vercel-ai/canonical-message.ts';
import type { ModelPrompt, PromptRecord } from '../../../adapters/hosts/vercel-ai/usage-middleware.ts';
import type { LedgerRow } from '../../../ports/projection-sink.port.ts';

/**
 * Gates over the prompts a model actually received, written as pure functions returning
 * violations, so each one can be shown to fail on a broken sequence.
 */

/** docs/behaviour.md I1: each prompt starts with the previous prompt's exact messages, unless its ledger row names a rewrite cause. */
export function appendOnlyViolations(records: readonly PromptRecord[], ledger: readonly LedgerRow[]): string[] {
  const violations: string[] = [];
  const rows = new Map(ledger.map((row) => [row.request, row]));
  for (let n = 1; n < records.length; n += 1) {
    const previous = records[n - 1]!;
    const next = records[n]!;
    if (next.request === undefined || next.request === previous.request) {
      violations.push(`prompt ${n} reached the model without its own projection`);
      continue;
    }
    if (extendsPrompt(previous.prompt, next.prompt)) continue;
    const row = rows.get(next.request);
    if (row === undefined || row.causes.length === 0)
      violations.push(`prompt ${n} (request ${next.request}) rewrote the previous prompt without a recorded cause`);
  }
  return violations;
}

/** True when `next` begins with every message of `previous`, byte for byte. */
export function extendsPrompt(previous: ModelPrompt, next: ModelPrompt): boolean {
  if (next.length < previous.length) return false;
  return previous.every((message, position) => canonicalBytes(message) === canonicalBytes(next[position]));
}

/**
 * docs/behaviour.md I3 as a provider checks it: every tool call is answered by the tool message(s) right
 * after it, before any other message, and every result answers an open call.
 */
export function pairingViolations(prompt: ModelPrompt): string[] {
  const violations: string[] = [];
  let open = new Set<string>();
  for (const [position, message] of prompt.entries()) {
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        if (!open.has(part.toolCallId))
          violations.push(`message ${position} answers ${part.toolCallId}, which no open call asked for`);
        open.delete(part.toolCallId);
      }
      continue;
    }
    if (open.size > 0)
      violations.push(
        `message ${position} (${message.role}) arrives while calls ${[...open].join(', ')} have no result`,
      );
    open = new Set();
    if (message.role === 'assistant') {
      for (const part of message.content)
        if (part.type === 'tool-call' && part.providerExecuted !== true) open.add(part.toolCallId);
    }
  }
  if (open.size > 0) violations.push(`the prompt ends while calls ${[...open].join(', ')} have no result`);
  return violations;
}
