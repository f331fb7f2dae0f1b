import type { SpilledToolCallArguments, SpillPointer } from '../../ports/projection-sink.port.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import type { SpillPolicy } from '../settings/spill-policy.ts';
import { codePointStart } from '../util/code-points.ts';
import { sha256Hex, stableStringify, utf8Length } from '../util/hashing.ts';

/** Prefix of spill ids; `peek` and `search` tell them from fold ids by it. */
export const SPILL_ID_PREFIX = 'sp_';

/** Share of the kept bytes given to the head (the rest shows the tail), as an unsliced peek does. */
const HEAD_SHARE = 0.6;

/** Which part of an entry a spill replaced. */
export type SpillTarget =
  | { readonly kind: 'result'; readonly toolName: string }
  | { readonly kind: 'argument'; readonly toolCallId: string; readonly toolName: string; readonly argument: string };

/** One spilled item: its exact content, its pointer and the text the window shows instead. */
export interface SpilledPart {
  readonly pointer: SpillPointer;
  readonly target: SpillTarget;
  /** The item's exact text (what the artifact holds). */
  readonly content: string;
  /** Head, pointer line and tail: what the window shows. */
  readonly shown: string;
}

/** How one entry is shown once its oversized parts are spilled. */
export interface SpillPlan {
  readonly entryId: string;
  readonly role: 'toolResult' | 'assistant';
  readonly parts: readonly SpilledPart[];
  readonly toolCallId?: string;
  readonly resultText?: string;
  readonly toolCallArguments?: readonly SpilledToolCallArguments[];
  /** Neutral serialisation of the window form (see ProjectedMessage `spilled`). */
  readonly bytes: string;
}

/**
 * Whether a text of `chars` chars could be over the threshold in UTF-8 bytes. A char is at most
 * three bytes, so a text of at most a third of the threshold in chars never is, and no byte
 * count is needed for it.
 */
function couldExceed(chars: number, policy: SpillPolicy): boolean {
  return chars > policy.thresholdBytes / 3;
}

/**
 * Whether anything in `entry` is long enough that it could be over the threshold:
 * `planSpill` returns undefined for every entry this refuses, and most entries are refused
 * by a length alone (the engine asks for each entry's form several times per request).
 */
export function maySpill(entry: TranscriptEntry, policy: SpillPolicy): boolean {
  if (entry.role === 'toolResult') return couldExceed(entry.text.length, policy);
  if (entry.role !== 'assistant' || entry.toolCalls === undefined) return false;
  for (const call of entry.toolCalls) if (couldExceed(call.argumentsJson.length, policy)) return true;
  return false;
}

/**
 * Decide how an entry enters the window (docs/behaviour.md B6.2). A pure function of the entry and the
 * policy, so the same transcript always gets the same window (docs/behaviour.md I5); the engine decides it
 * once per entry and keeps the session's policy in its state, so the form never changes
 * between requests (docs/behaviour.md I1). Returns undefined when nothing is over the threshold.
 */
export function planSpill(entry: TranscriptEntry, policy: SpillPolicy, toolName: string): SpillPlan | undefined {
  if (entry.role === 'toolResult') return planResult(entry, policy, toolName);
  if (entry.role === 'assistant' && entry.toolCalls !== undefined && entry.toolCalls.length > 0)
    return planArguments(entry, policy, toolName);
  return undefined;
}

function planResult(entry: TranscriptEntry, policy: SpillPolicy, toolName: string): SpillPlan | undefined {
  if (!couldExceed(entry.text.length, policy)) return undefined;
  // Measured once: the same length tells whether the text is all ASCII (see spillPart).
  const byteLength = utf8Length(entry.text);
  if (byteLength <= policy.thresholdBytes) return undefined;
  const pieces = spillPieces(
    entry.text,
    { kind: 'result', toolName: entry.toolName ?? '' },
    policy,
    toolName,
    byteLength,
  );
  const { part } = pieces;
  return {
    entryId: entry.id,
    role: 'toolResult',
    parts: [part],
    ...(entry.toolCallId === undefined ? {} : { toolCallId: entry.toolCallId }),
    resultText: part.shown,
    bytes: resultBytes(entry, part.pointer, quotedShown(pieces)),
  };
}

/**
 * The window form of a spilled result, as `stableStringify` writes it: the members are
 * written in sorted order at every depth here, so no sorted copy of the value is built
 * per result (undefined members are dropped by JSON.stringify alike).
 */
export function spilledResultBytes(
  entry: Pick<TranscriptEntry, 'toolCallId' | 'toolName'>,
  part: Pick<SpilledPart, 'shown' | 'pointer'>,
): string {
  return resultBytes(entry, part.pointer, JSON.stringify(part.shown));
}

/**
 * The window form around the text's JSON literal: `content` sorts first, so the literal leads and
 * the other members follow.
 */
function resultBytes(
  entry: Pick<TranscriptEntry, 'toolCallId' | 'toolName'>,
  pointer: SpillPointer,
  quotedText: string,
): string {
  const rest = JSON.stringify({
    role: 'toolResult',
    spilled: [
      {
        bytes: pointer.bytes,
        headBytes: pointer.headBytes,
        id: pointer.id,
        sha256: pointer.sha256,
        tailBytes: pointer.tailBytes,
      },
    ],
    toolCallId: entry.toolCallId,
    toolName: entry.toolName,
  });
  return `{"content":[{"text":${quotedText},"type":"text"}],${rest.slice(1)}`;
}

/**
 * The window text (head, pointer line, tail) as a JSON string literal, quoted piece by piece.
 * JSON escapes each char on its own, so the pieces' literals joined are the whole text's
 * literal. Quoting the joined text costs several times more: the pointer line's '…' makes it
 * a two-byte string, which V8 quotes char by char, where the head and tail keep the one-byte
 * form most tool output has.
 */
function quotedShown({ head, line, tail }: Pick<SpillPieces, 'head' | 'line' | 'tail'>): string {
  return `${JSON.stringify(head).slice(0, -1)}\\n${JSON.stringify(line).slice(1, -1)}\\n${JSON.stringify(tail).slice(1)}`;
}

function planArguments(entry: TranscriptEntry, policy: SpillPolicy, toolName: string): SpillPlan | undefined {
  const parts: SpilledPart[] = [];
  const replaced: SpilledToolCallArguments[] = [];
  const calls: unknown[] = [];
  for (const call of entry.toolCalls!) {
    const oversized =
      couldExceed(call.argumentsJson.length, policy) && utf8Length(call.argumentsJson) > policy.thresholdBytes;
    const spilled = oversized ? spillArguments(call, policy, toolName) : undefined;
    if (spilled !== undefined) {
      parts.push(...spilled.parts);
      replaced.push({ toolCallId: call.id, argumentsJson: spilled.argumentsJson });
    }
    calls.push({
      type: 'toolCall',
      id: call.id,
      name: call.name,
      arguments: spilled?.argumentsJson ?? call.argumentsJson,
    });
  }
  if (parts.length === 0) return undefined;
  const bytes = stableStringify({
    role: 'assistant',
    text: entry.text,
    content: calls,
    spilled: parts.map((part) => part.pointer),
  });
  return { entryId: entry.id, role: 'assistant', parts, toolCallArguments: replaced, bytes };
}

/** Name under which arguments that are not a JSON object are spilled whole. */
const WHOLE_ARGUMENTS = '(arguments)';

/**
 * Spill each top-level argument over the threshold on its own: the call keeps its shape and
 * its small arguments (a path, a flag), and only the oversized values become window forms.
 */
function spillArguments(
  call: NonNullable<TranscriptEntry['toolCalls']>[number],
  policy: SpillPolicy,
  toolName: string,
): { parts: SpilledPart[]; argumentsJson: string } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(call.argumentsJson);
  } catch {
    value = call.argumentsJson;
  }
  const target = (argument: string) => ({
    kind: 'argument' as const,
    toolCallId: call.id,
    toolName: call.name,
    argument,
  });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const part = spillPart(
      typeof value === 'string' ? value : call.argumentsJson,
      target(WHOLE_ARGUMENTS),
      policy,
      toolName,
    );
    return { parts: [part], argumentsJson: stableStringify({ [WHOLE_ARGUMENTS]: part.shown }) };
  }
  const parts: SpilledPart[] = [];
  const shownArguments: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const key of Object.keys(shownArguments).sort()) {
    const member = shownArguments[key];
    const content = typeof member === 'string' ? member : stableStringify(member);
    if (content === undefined || utf8Length(content) <= policy.thresholdBytes) continue;
    const part = spillPart(content, target(key), policy, toolName);
    parts.push(part);
    shownArguments[key] = part.shown;
  }
  // Many arguments each under the threshold can still add up: those calls stay as they are,
  // the same as a result just under the threshold.
  return parts.length === 0 ? undefined : { parts, argumentsJson: stableStringify(shownArguments) };
}

function spillPart(content: string, target: SpillTarget, policy: SpillPolicy, toolName: string): SpilledPart {
  return spillPieces(content, target, policy, toolName, utf8Length(content)).part;
}

/** A spilled item, with the three pieces its window text is made of. */
interface SpillPieces {
  readonly part: SpilledPart;
  readonly head: string;
  readonly line: string;
  readonly tail: string;
}

function spillPieces(
  content: string,
  target: SpillTarget,
  policy: SpillPolicy,
  toolName: string,
  byteLength: number,
): SpillPieces {
  // Most tool output is ASCII, where a char is a byte: such an item is hashed and cut as the
  // string it is, without encoding a copy of it (an allocation of its full size per result).
  const cut = byteLength === content.length ? cutAscii(content, policy) : cutEncoded(content, policy);
  const { sha256, bytes, headEnd, tailStart, head, tail } = cut;
  const pointer: SpillPointer = {
    id: `${SPILL_ID_PREFIX}${sha256.slice(0, 20)}`,
    sha256,
    bytes,
    headBytes: headEnd,
    tailBytes: bytes - tailStart,
  };
  const line = spillLine(pointer, target, toolName);
  return { part: { pointer, target, content, shown: `${head}\n${line}\n${tail}` }, head, line, tail };
}

/** Where a spilled item is cut: its SHA-256 and byte length, and the head and tail the window keeps. */
export interface SpillCut {
  readonly sha256: string;
  readonly bytes: number;
  /** Bytes [0, headEnd) are the head; bytes [tailStart, bytes) the tail; both on code point starts. */
  readonly headEnd: number;
  readonly tailStart: number;
  readonly head: string;
  readonly tail: string;
}

/** The cut of any item, through its UTF-8 bytes. */
export function cutEncoded(content: string, policy: SpillPolicy): SpillCut {
  const bytes = Buffer.from(content, 'utf8');
  const headEnd = codePointStart(bytes, Math.floor(policy.keepBytes * HEAD_SHARE));
  const tailStart = codePointStart(bytes, bytes.length - (policy.keepBytes - headEnd));
  return {
    sha256: sha256Hex(bytes),
    bytes: bytes.length,
    headEnd,
    tailStart,
    head: bytes.subarray(0, headEnd).toString('utf8'),
    tail: bytes.subarray(tailStart).toString('utf8'),
  };
}

/** The same cut of an all-ASCII item, on the string itself: every offset is a code point start. */
export function cutAscii(content: string, policy: SpillPolicy): SpillCut {
  const clamp = (offset: number) => Math.max(0, Math.min(offset, content.length));
  const headEnd = clamp(Math.floor(policy.keepBytes * HEAD_SHARE));
  const tailStart = clamp(content.length - (policy.keepBytes - headEnd));
  return {
    sha256: sha256Hex(content),
    bytes: content.length,
    headEnd,
    tailStart,
    head: content.slice(0, headEnd),
    tail: content.slice(tailStart),
  };
}

/**
 * The first line of a spill's peek text. Peek offsets count it (they are bytes into the peek
 * text, as for a fold), so it depends on the pointer alone: the same offsets hold whether the
 * bytes come from the evidence store or the transcript.
 */
export function spillPeekHeader(pointer: SpillPointer): Buffer {
  return Buffer.from(spillPeekHeaderText(pointer));
}

/**
 * The peek header's length in bytes, measured without encoding it (the pointer line of every
 * spilled item names it).
 */
export function spillPeekHeaderBytes(pointer: SpillPointer): number {
  return utf8Length(spillPeekHeaderText(pointer));
}

function spillPeekHeaderText(pointer: SpillPointer): string {
  return `spill ${pointer.id} | ${pointer.bytes} bytes | sha256 ${pointer.sha256} verified\n`;
}

/** The pointer line between head and tail: what was cut, where it is, how to read it. */
export function spillLine(pointer: SpillPointer, target: SpillTarget, toolName: string): string {
  const what =
    target.kind === 'result'
      ? `this ${target.toolName || 'tool'} result`
      : `argument "${target.argument}" of this ${target.toolName} call`;
  const omitted = pointer.bytes - pointer.headBytes - pointer.tailBytes;
  return (
    `[pi-fold spilled ${pointer.id}: ${what} is ${pointer.bytes} bytes (sha256 ${pointer.sha256}); ` +
    `the window keeps its first ${pointer.headBytes} and last ${pointer.tailBytes} bytes, the ${omitted} between are stored exact. ` +
    `Read them with ${toolName} {"action":"peek","id":"${pointer.id}","offset":${spillPeekHeaderBytes(pointer) + pointer.headBytes}} or find text with ${toolName} {"action":"search","pattern":"…"}]`
  );
}
