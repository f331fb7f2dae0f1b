import type { FoldKind } from '../../ports/fold-records.ts';

/**
 * The only words the runtime ever writes into the window. Each is a pure function of its
 * inputs, so the same fold always renders the same bytes (docs/behaviour.md I5, B5.2).
 */

export interface PlaceholderFacts {
  readonly foldId: string;
  readonly kind: FoldKind;
  readonly brief: string;
  readonly sourceChars: number;
  readonly entryCount: number;
  readonly sourceSha256: string;
  readonly toolName: string;
}

export function placeholderText(facts: PlaceholderFacts): string {
  const call = (action: string) => `${facts.toolName} {"action":"${action}","id":"${facts.foldId}"}`;
  return [
    `[folded ${facts.kind} ${facts.foldId} · ${facts.entryCount} entries · ${facts.sourceChars} chars · sha256 ${facts.sourceSha256.slice(0, 12)}]`,
    facts.brief,
    // The expand call differs from the peek call by its action alone, so only that action is
    // named: a second copy of the call, or a sentence about it, would ride every request.
    `exact source: ${call('peek')} · "action":"expand" restores it`,
  ].join('\n');
}

/** The result stub of a folded tool result other than the first (the first carries the placeholder). */
export function siblingStubText(foldId: string): string {
  return `[result folded into ${foldId}, described in the first result of this batch]`;
}

/** What an ephemeral peek result becomes once the model has replied to it. */
export function peekStubText(foldId: string, toolName: string): string {
  return `[peek of ${foldId} returned; the reply after it kept what mattered. Read again with ${toolName} {"action":"peek","id":"${foldId}"}]`;
}

export const NOTICE_MAX_BYTES = 1200;

/**
 * docs/behaviour.md B5.3: once per frozen projection, name the cut folds still waiting for the
 * agent's words. `alreadyNamed` counts those an earlier notice still in the window names: they
 * are referred to, not listed again, since that notice is right above.
 */
export function unbriefedNoticeText(
  pending: readonly { id: string; kind: FoldKind; chars: number }[],
  toolName: string,
  alreadyNamed = 0,
): string {
  const total = pending.length + alreadyNamed;
  const head = `[pi-fold] ${total} spans are cut and will fold at the next commit with runtime-written briefs. Your own words help you find them later:`;
  const example = (id: string) => `${toolName} {"action":"brief","id":"${id}","text":"…"}`;
  const lines = [head];
  let used = head.length;
  if (alreadyNamed > 0) {
    const earlier = `- the ${alreadyNamed} named in the notice above`;
    lines.push(earlier);
    used += earlier.length + 1;
  }
  const tail = `write one with ${example(pending[0]?.id ?? 'fold_…')}`;
  for (const [position, mark] of pending.entries()) {
    const line = `- ${mark.id} (${mark.kind}, ${mark.chars} chars)`;
    if (used + line.length + tail.length + 40 > NOTICE_MAX_BYTES) {
      lines.push(`- … and ${pending.length - position} more (status lists them)`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  lines.push(tail);
  return lines.join('\n');
}

/**
 * docs/behaviour.md B3.5: what one commit folded and what it freed, appended once after the
 * commit. The folds are counted by kind, not listed, and no read call is shown: each one's
 * placeholder, in place in the window, already names it and gives the exact call, and a
 * second copy here would ride every later request.
 */
export function commitReceiptText(receipt: {
  epoch: number;
  folds: readonly { id: string; kind: FoldKind }[];
  freedTokens: number;
  occupancyBefore: number;
  occupancyAfter: number;
}): string {
  const byKind = new Map<FoldKind, number>();
  for (const fold of receipt.folds) byKind.set(fold.kind, (byKind.get(fold.kind) ?? 0) + 1);
  const kinds = [...byKind].map(([kind, count]) => `${count} ${kind}`).join(', ');
  return `[pi-fold commit ${receipt.epoch}] folded ${receipt.folds.length} span(s) (${kinds}), freed about ${receipt.freedTokens} tokens; occupancy ${percent(receipt.occupancyBefore)} → ${percent(receipt.occupancyAfter)}.`;
}

function percent(share: number): string {
  return `${Math.round(share * 1000) / 10}%`;
}
