import type { ProjectedMessage } from '../../ports/projected-message.ts';

/**
 * What a request's window is made of, in tokens: the fixed parts every request carries
 * (system prompt, tool schemas), the transcript as recorded, and what pi-fold writes into it
 * (fold briefs, result stubs, spilled items' window forms, notices, receipts). The parts add
 * up to the request's prompt tokens, so a report can say where a window's rent goes.
 */
export interface WindowParts {
  readonly system: number;
  readonly tools: number;
  /** Transcript messages as the host has them (every message, for an arm pi-fold does not run). */
  readonly transcript: number;
  /** Fold placeholders: a brief with the fold's id and how to read it back. */
  readonly briefs: number;
  /** Tool results shown as one-line stubs (a fold's sibling results, old peeks). */
  readonly stubs: number;
  /** Spilled items: head, exact pointer and tail. */
  readonly spilled: number;
  readonly notices: number;
  readonly receipts: number;
  /** Messages the runtime's projection could not be lined up with (0 when the host sent exactly the projection). */
  readonly unmatched: number;
}

export type WindowPart = keyof WindowParts;

/** The parts in the order every report prints them, with their printed labels. */
export const WINDOW_PARTS: readonly { readonly key: WindowPart; readonly label: string }[] = [
  { key: 'system', label: 'system prompt' },
  { key: 'tools', label: 'tool schemas' },
  { key: 'transcript', label: 'transcript messages' },
  { key: 'briefs', label: 'fold briefs' },
  { key: 'stubs', label: 'result stubs' },
  { key: 'spilled', label: 'spilled items' },
  { key: 'notices', label: 'notices' },
  { key: 'receipts', label: 'receipts' },
  { key: 'unmatched', label: 'unmatched' },
];

const NO_PARTS: WindowParts = Object.freeze({
  system: 0,
  tools: 0,
  transcript: 0,
  briefs: 0,
  stubs: 0,
  spilled: 0,
  notices: 0,
  receipts: 0,
  unmatched: 0,
});

/** Which part one projected message is. */
export function windowPartOf(message: ProjectedMessage): WindowPart {
  switch (message.kind) {
    case 'entry':
      return 'transcript';
    case 'spilled':
      return 'spilled';
    case 'stub':
      return 'stubs';
    case 'synthetic':
      return message.origin === 'placeholder' ? 'briefs' : message.origin === 'notice' ? 'notices' : 'receipts';
  }
}

/**
 * A prompt's parts from its wire elements' token counts (system, tools, then one per message)
 * and, where pi-fold shaped the window, the part of each message it projected. When the host
 * sent another number of messages than the projection held, the messages count as unmatched.
 */
export function windowParts(
  elementTokens: readonly number[],
  messageParts: readonly WindowPart[] | undefined,
): WindowParts {
  const parts: Record<WindowPart, number> = {
    ...NO_PARTS,
    system: elementTokens[0] ?? 0,
    tools: elementTokens[1] ?? 0,
  };
  const messages = elementTokens.slice(2);
  const aligned = messageParts === undefined || messageParts.length === messages.length;
  messages.forEach((tokens, position) => {
    const part = messageParts === undefined ? 'transcript' : aligned ? messageParts[position]! : 'unmatched';
    parts[part] += tokens;
  });
  return parts;
}

/**
 * What `meanWindowParts` reads of a request row (`RequestRow` in lab-records.ts, which holds
 * these parts): named here so the parts need nothing from the records that carry them.
 */
interface RowWithParts {
  readonly rejected: boolean;
  readonly purpose: string;
  readonly window?: WindowParts;
}

/** Mean tokens per agent request, part by part (undefined when no row carries its parts). */
export function meanWindowParts(rows: readonly RowWithParts[]): WindowParts | undefined {
  const counted = rows.filter((row) => !row.rejected && row.purpose !== 'summary' && row.window !== undefined);
  if (counted.length === 0) return undefined;
  const sums: Record<WindowPart, number> = { ...NO_PARTS };
  for (const row of counted) for (const { key } of WINDOW_PARTS) sums[key] += row.window![key];
  for (const { key } of WINDOW_PARTS) sums[key] = Math.round(sums[key] / counted.length);
  return sums;
}
