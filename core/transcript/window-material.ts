import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { TranscriptIndex } from './transcript-index.ts';

/**
 * What a refused window holds, in chars, by why it is there (docs/behaviour.md I6): a refusal
 * must name what is really in the way, never pins or open work the window does not hold.
 */
export interface WindowMaterial {
  /** Entries a person or the agent pinned. */
  readonly pinned: number;
  /** Entries the host protected, or batches that never closed (interrupted), kept raw. */
  readonly protected: number;
  /** Tool results answering no call just before them (docs/behaviour.md I3), kept raw. */
  readonly strayResults: number;
  /** Units still open: the newest one, or a tool batch waiting for results. */
  readonly open: number;
  /** Closed entries shown raw that no fold could take on this request. */
  readonly closedRaw: number;
  /** Placeholders and stubs of the folds the window shows. */
  readonly folds: number;
  /** Receipts and notices pi-fold appended. */
  readonly notices: number;
  /** What the host sends beside the messages (system prompt, tool definitions). */
  readonly overhead: number;
}

/** Inputs of the account: the window as drafted, the index and what is pinned. */
export interface MaterialInputs {
  readonly messages: readonly ProjectedMessage[];
  readonly index: TranscriptIndex;
  readonly pins: ReadonlySet<string>;
  readonly overheadChars: number;
}

/** Sort every message of the window into one kind of material. Walked only for a refusal. */
export function windowMaterial(inputs: MaterialInputs): WindowMaterial {
  const sums = { pinned: 0, protected: 0, strayResults: 0, open: 0, closedRaw: 0, folds: 0, notices: 0 };
  const { index } = inputs;
  for (const message of inputs.messages) {
    const chars = message.bytes.length;
    if (message.kind === 'synthetic') {
      if (message.origin === 'placeholder') sums.folds += chars;
      else sums.notices += chars;
      continue;
    }
    if (message.kind === 'stub') {
      // A retired peek's stub stands for a finished read, not for a fold.
      if (message.origin === 'fold-stub') sums.folds += chars;
      else sums.closedRaw += chars;
      continue;
    }
    const position = index.positionOf(message.entryId);
    const unitIndex = position === undefined ? undefined : index.unitOf[position];
    const unit = unitIndex === undefined ? undefined : index.units[unitIndex];
    if (position === undefined || unitIndex === undefined || unit === undefined) sums.closedRaw += chars;
    else if (inputs.pins.has(index.entries[position]!.id)) sums.pinned += chars;
    else if (unit.kind === 'orphan-result') sums.strayResults += chars;
    else if (unit.protected || index.entries[position]!.protected === true) sums.protected += chars;
    else if (!index.isClosed(unitIndex)) sums.open += chars;
    else sums.closedRaw += chars;
  }
  return { ...sums, overhead: inputs.overheadChars };
}

const PHRASES: readonly [keyof WindowMaterial, string][] = [
  ['pinned', 'pinned entries'],
  ['protected', 'protected entries'],
  ['strayResults', 'tool results answering no call made just before them, which cannot fold without being stranded'],
  ['open', 'open units (the newest turn, or a tool batch still waiting for results)'],
  ['closedRaw', 'closed entries no fold can take now'],
  ['folds', 'the placeholders and stubs of folds already made'],
  ['notices', "pi-fold's receipts and notices"],
  ['overhead', "the host's own overhead (system prompt, tool definitions)"],
];

/** The kinds of material the window holds, largest first, each with its chars. */
export function describeMaterial(material: WindowMaterial): string {
  const named = PHRASES.filter(([key]) => material[key] > 0).sort(([a], [b]) => material[b] - material[a]);
  if (named.length === 0) return 'an empty window';
  return named.map(([key, phrase]) => `${phrase} (${material[key]} chars)`).join(', ');
}
