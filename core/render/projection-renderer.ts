/** Room core/render/: the window as a pure function of the state, and the only words pi-fold writes. */

import type { FoldRecord, WindowInsertV1 } from '../../ports/fold-records.ts';
import type { ProjectedMessage } from '../../ports/projection-sink.port.ts';
import type { FoldLattice, PlacedFold } from '../folds/fold-lattice.ts';
import type { SpillBook } from '../spill/spill-book.ts';
import type { SpillPlan } from '../spill/spill-plan.ts';
import type { TranscriptIndex } from '../transcript/transcript-index.ts';
import { sha256Hex, stableStringify } from '../util/hashing.ts';
import { peekStubText, placeholderText, siblingStubText } from './window-text.ts';

/** Everything a render reads. Rendering is a pure function of it (docs/behaviour.md I5). */
export interface RenderInputs {
  readonly index: TranscriptIndex;
  readonly lattice: FoldLattice;
  /** Tool call ids of peeks whose result is shown as a one-line stub, with the peeked fold id. */
  readonly retiredPeeks: ReadonlyMap<string, string>;
  /** Notices and receipts, grouped by the entry they follow, in sequence order. */
  readonly insertsByAnchor: ReadonlyMap<string, readonly WindowInsertV1[]>;
  readonly toolName: string;
  /** How each entry is shown once its oversized parts are spilled (docs/behaviour.md B6.2). */
  readonly spills?: SpillBook;
}

/** In `FullRender.starts`: the entry is behind a placeholder and shows no message of its own. */
export const HIDDEN_ENTRY = -1;

/** A render of the whole window, with the layout a commit's patch needs (`render-patch.ts`). */
export interface FullRender {
  readonly messages: ProjectedMessage[];
  /** The collapsed folds that are visible, in window order. */
  readonly visibleFolds: PlacedFold[];
  /** Per entry position: the index in `messages` of its first message, or HIDDEN_ENTRY. */
  readonly starts: Int32Array;
}

/**
 * Builds projected messages and remembers the ones it made, so an unchanged fold or entry
 * is never re-serialised or re-hashed (a request costs what it appends).
 */
export class ProjectionRenderer {
  private readonly placeholders = new Map<string, ProjectedMessage>();
  private readonly stubs = new Map<string, ProjectedMessage>();
  private readonly insertMessages = new Map<string, ProjectedMessage>();

  /**
   * Render the whole window. Also returns the collapsed folds that are visible, in order, and where
   * each entry's messages start.
   */
  renderAll(inputs: RenderInputs): FullRender {
    const messages: ProjectedMessage[] = [];
    const visibleFolds: PlacedFold[] = [];
    const starts = new Int32Array(inputs.index.length);
    this.renderRange(inputs, 0, inputs.index.length - 1, messages, visibleFolds, true, starts);
    return { messages, visibleFolds, starts };
  }

  /** Render entries [from, to] in order into `out`; `starts`, when given, records where each entry's messages begin. */
  renderRange(
    inputs: RenderInputs,
    from: number,
    to: number,
    out: ProjectedMessage[],
    visibleFolds: PlacedFold[] | undefined,
    withInserts: boolean,
    starts?: Int32Array,
  ): void {
    const { index, lattice } = inputs;
    for (let position = from; position <= to; position += 1) {
      if (starts !== undefined) starts[position] = out.length;
      const folded = lattice.collapsedStartingAt(position);
      if (folded !== undefined && folded.last <= to) {
        visibleFolds?.push(folded);
        if (folded.record.kind === 'tool') {
          for (let resultPosition = folded.first; resultPosition <= folded.last; resultPosition += 1) {
            if (starts !== undefined) starts[resultPosition] = out.length;
            out.push(this.foldStub(inputs, folded.record, resultPosition, resultPosition === folded.first));
            if (withInserts) this.pushInserts(inputs, resultPosition, out);
          }
        } else {
          out.push(this.placeholder(inputs, folded.record));
          // The entries behind one placeholder have no messages of their own.
          starts?.fill(HIDDEN_ENTRY, folded.first + 1, folded.last + 1);
        }
        position = folded.last;
        continue;
      }
      const entry = index.entries[position]!;
      const retiredFold =
        entry.role === 'toolResult' && entry.toolCallId !== undefined
          ? inputs.retiredPeeks.get(entry.toolCallId)
          : undefined;
      out.push(
        retiredFold === undefined ? entryMessage(inputs, position) : this.peekStub(inputs, position, retiredFold),
      );
      if (withInserts) this.pushInserts(inputs, position, out);
    }
  }

  /** The message for a newly appended entry plus its inserts (the pure-append path). */
  renderAppended(inputs: RenderInputs, from: number, out: ProjectedMessage[]): void {
    this.renderRange(inputs, from, inputs.index.length - 1, out, undefined, true);
  }

  insertMessage(insert: WindowInsertV1): ProjectedMessage {
    const key = `${insert.afterEntryId}\u0000${insert.sequence}`;
    let message = this.insertMessages.get(key);
    if (message === undefined) {
      message = syntheticMessage(insert.kind, insert.text);
      this.insertMessages.set(key, message);
    }
    return message;
  }

  placeholder(inputs: RenderInputs, record: FoldRecord): ProjectedMessage {
    let message = this.placeholders.get(record.id);
    if (message === undefined) {
      message = syntheticMessage(
        'placeholder',
        placeholderText({ ...facts(record), toolName: inputs.toolName }),
        record.id,
      );
      this.placeholders.set(record.id, message);
    }
    return message;
  }

  private foldStub(
    inputs: RenderInputs,
    record: FoldRecord,
    position: number,
    carriesPlaceholder: boolean,
  ): ProjectedMessage {
    const entry = inputs.index.entries[position]!;
    const key = `${record.id}\u0000${entry.id}`;
    let message = this.stubs.get(key);
    if (message === undefined) {
      const text = carriesPlaceholder
        ? placeholderText({ ...facts(record), toolName: inputs.toolName })
        : siblingStubText(record.id);
      message = stubMessage('fold-stub', entry.id, entry.toolCallId ?? '', entry.toolName ?? '', record.id, text);
      this.stubs.set(key, message);
    }
    return message;
  }

  private peekStub(inputs: RenderInputs, position: number, foldId: string): ProjectedMessage {
    const entry = inputs.index.entries[position]!;
    const key = `peek\u0000${entry.id}`;
    let message = this.stubs.get(key);
    if (message === undefined) {
      message = stubMessage(
        'peek-stub',
        entry.id,
        entry.toolCallId ?? '',
        entry.toolName ?? '',
        foldId,
        peekStubText(foldId, inputs.toolName),
      );
      this.stubs.set(key, message);
    }
    return message;
  }

  private pushInserts(inputs: RenderInputs, position: number, out: ProjectedMessage[]): void {
    const inserts = inputs.insertsByAnchor.get(inputs.index.entries[position]!.id);
    if (inserts === undefined) return;
    for (const insert of inserts) out.push(this.insertMessage(insert));
  }
}

function facts(record: FoldRecord) {
  return {
    foldId: record.id,
    kind: record.kind,
    brief: record.brief,
    sourceChars: record.sourceChars,
    entryCount: record.entryCount,
    sourceSha256: record.sourceSha256,
  };
}

const entryMessages = new WeakMap<object, ProjectedMessage>();

const spilledMessages = new WeakMap<SpillPlan, ProjectedMessage>();

/**
 * An entry as the host had it, or in its spilled form when a part of it is over the spill
 * threshold (docs/behaviour.md B6.2). Cached per entry object, and per spill plan (each runtime decides its
 * own): entries are immutable, and so are their plans.
 */
export function entryMessage(inputs: Pick<RenderInputs, 'index' | 'spills'>, position: number): ProjectedMessage {
  const { index } = inputs;
  const entry = index.entries[position]!;
  const plan = inputs.spills?.planFor(entry);
  if (plan !== undefined) return spilledMessage(plan);
  let message = entryMessages.get(entry);
  if (message === undefined) {
    message = uniformMessage(
      'entry',
      undefined,
      entry.id,
      undefined,
      undefined,
      undefined,
      undefined,
      entry.bytes,
      index.shas[position]!,
    );
    entryMessages.set(entry, message);
  }
  return message;
}

function spilledMessage(plan: SpillPlan): ProjectedMessage {
  let message = spilledMessages.get(plan);
  if (message === undefined) {
    message = {
      kind: 'spilled',
      entryId: plan.entryId,
      role: plan.role,
      ...(plan.toolCallId === undefined ? {} : { toolCallId: plan.toolCallId }),
      ...(plan.resultText === undefined ? {} : { resultText: plan.resultText }),
      ...(plan.toolCallArguments === undefined ? {} : { toolCallArguments: plan.toolCallArguments }),
      spills: plan.parts.map((part) => part.pointer),
      bytes: plan.bytes,
      digest: sha256Hex(plan.bytes),
    };
    spilledMessages.set(plan, message);
  }
  return message;
}

export function syntheticMessage(
  origin: 'placeholder' | 'notice' | 'receipt',
  text: string,
  foldId?: string,
): ProjectedMessage {
  const bytes = stableStringify({ role: 'user', text });
  return uniformMessage('synthetic', origin, undefined, undefined, undefined, foldId, text, bytes, sha256Hex(bytes));
}

function stubMessage(
  origin: 'fold-stub' | 'peek-stub',
  entryId: string,
  toolCallId: string,
  toolName: string,
  foldId: string,
  text: string,
): ProjectedMessage {
  const bytes = stableStringify({ role: 'toolResult', text, toolCallId, toolName });
  return uniformMessage('stub', origin, entryId, toolCallId, toolName, foldId, text, bytes, sha256Hex(bytes));
}

/**
 * Every projected message is built with the same fields in the same order (absent ones
 * undefined), so loops over a long window touch one object shape and stay fast.
 */
function uniformMessage(
  kind: ProjectedMessage['kind'],
  origin: string | undefined,
  entryId: string | undefined,
  toolCallId: string | undefined,
  toolName: string | undefined,
  foldId: string | undefined,
  text: string | undefined,
  bytes: string,
  digest: string,
): ProjectedMessage {
  return { kind, origin, entryId, toolCallId, toolName, foldId, text, bytes, digest } as ProjectedMessage;
}
