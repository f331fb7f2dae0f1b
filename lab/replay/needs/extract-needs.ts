import { toolBrief } from '../../../core/folds/briefs.ts';
import type { TranscriptEntry } from '../../../ports/transcript-source.port.ts';
import { commandPieces, errorPieces, type NeedKind, piecesOf } from './need-pieces.ts';

/**
 * A need: a later response of the recorded model used an exact piece of an earlier tool
 * result, a piece the user and the model had not written before a tool gave it. The model
 * had to have that piece in reach at that request, so every way of keeping the window is
 * scored on it there (`score-need.ts`).
 */
export interface Need {
  readonly piece: string;
  readonly kind: NeedKind;
  /** The response that used it (0-based among the recording's responses: the replay's agent request). */
  readonly response: number;
  /** Index in the recording's entries of that response. */
  readonly entryIndex: number;
  /** The tool results before it that hold the piece (entry indices), newest last, at most `MAX_SOURCES`. */
  readonly sources: readonly number[];
}

/** What a tool result was, for finding it again: the call that produced it and, for a read, the file. */
export interface ToolSource {
  readonly entryIndex: number;
  readonly toolName: string;
  readonly text: string;
  /** The call as a runtime's brief names it (`bash(command="npm test")`), when the call was recorded. */
  readonly callLine?: string;
  /** The file a read tool read, where the call names one. */
  readonly readPath?: string;
}

/** A recorded call, for telling whether a file was touched between a read and a need. */
export interface RecordedCall {
  readonly entryIndex: number;
  readonly name: string;
  readonly argumentsJson: string;
}

/** The needs of a recording and what a scorer must know of their sources. */
export interface RecordingNeeds {
  readonly needs: readonly Need[];
  readonly sources: ReadonlyMap<number, ToolSource>;
  readonly calls: readonly RecordedCall[];
}

/**
 * Commands are looked for in the newest this many characters of tool output: a model copies a
 * command from what it read lately, and a session of hundreds of MB must not cost a scan of all
 * of it per command.
 */
const TOOL_LOOK_BACK_CHARS = 8_000_000;
/** Error lines waiting to be quoted, newest kept: one per line of every failing run would grow without end. */
const MAX_ERROR_PIECES = 2_000;

/** Older sources than this many are not kept per need: the newest are the ones a model goes back to. */
const MAX_SOURCES = 8;
/** Tools whose result is a file's text, which a later read of the same file gives again. */
export const READ_TOOLS: ReadonlySet<string> = new Set(['read', 'Read', 'read_file', 'view', 'cat']);
const PATH_ARGUMENTS = ['path', 'file_path', 'filePath', 'file', 'filename'] as const;

/**
 * Derive the needs of a recording from its entries alone, in one pass. A piece's origin is
 * where it appeared first: in a user message or in something the model wrote (its text or
 * its tool-call arguments), or in a tool result. Only pieces a tool gave first are needs;
 * every later response that writes one (in its text or its calls' arguments) needs it once.
 */
export function extractNeeds(entries: readonly TranscriptEntry[]): RecordingNeeds {
  const authored = new Map<string, number>();
  const fromTools = new Map<string, number[]>();
  const errors = new Map<string, number[]>();
  const toolCorpus = new Corpus(TOOL_LOOK_BACK_CHARS);
  const authoredCorpus = new Corpus();
  const sources = new Map<number, ToolSource>();
  const calls: RecordedCall[] = [];
  const callsById = new Map<string, { name: string; argumentsJson: string; entry: TranscriptEntry }>();
  const needs: Need[] = [];
  let response = 0;
  for (const [index, entry] of entries.entries()) {
    if (entry.role === 'toolResult') {
      for (const piece of piecesOf(entry.text)) pushSource(fromTools, piece.text, index);
      for (const piece of errorPieces(entry.text))
        if (!authoredCorpus.includes(piece)) pushSource(errors, piece, index);
      for (const oldest of errors.keys()) {
        if (errors.size <= MAX_ERROR_PIECES) break;
        errors.delete(oldest);
      }
      toolCorpus.append(entry.text, index);
      sources.set(index, toolSource(entry, index, callsById));
      continue;
    }
    const written = writtenText(entry);
    if (entry.role === 'assistant') {
      needs.push(
        ...responseNeeds({ entry, index, response, written, authored, fromTools, errors, toolCorpus, authoredCorpus }),
      );
      for (const call of entry.toolCalls ?? []) {
        calls.push({ entryIndex: index, name: call.name, argumentsJson: call.argumentsJson });
        callsById.set(call.id, { name: call.name, argumentsJson: call.argumentsJson, entry });
      }
      response += 1;
    }
    for (const piece of piecesOf(written)) if (!authored.has(piece.text)) authored.set(piece.text, index);
    authoredCorpus.append(written, index);
  }
  return { needs, sources, calls };
}

interface ResponseInput {
  readonly entry: TranscriptEntry;
  readonly index: number;
  readonly response: number;
  readonly written: string;
  readonly authored: ReadonlyMap<string, number>;
  readonly fromTools: ReadonlyMap<string, readonly number[]>;
  readonly errors: ReadonlyMap<string, readonly number[]>;
  readonly toolCorpus: Corpus;
  readonly authoredCorpus: Corpus;
}

/** The needs of one response: each piece it writes that a tool gave before the user or the model wrote it. */
function responseNeeds(input: ResponseInput): Need[] {
  const found = new Map<string, Need>();
  const add = (piece: string, kind: NeedKind, sources: readonly number[]) => {
    if (sources.length === 0 || found.has(piece)) return;
    found.set(piece, {
      piece,
      kind,
      response: input.response,
      entryIndex: input.index,
      sources: sources.slice(-MAX_SOURCES),
    });
  };
  for (const piece of piecesOf(input.written)) {
    const seen = input.fromTools.get(piece.text);
    const authoredAt = input.authored.get(piece.text);
    if (seen !== undefined && (authoredAt === undefined || authoredAt > seen[0]!)) add(piece.text, piece.kind, seen);
  }
  for (const call of input.entry.toolCalls ?? []) {
    for (const command of commandPieces(parseObject(call.argumentsJson))) {
      const seen = input.toolCorpus.entriesHolding(command);
      const authoredAt = input.authoredCorpus.entriesHolding(command)[0];
      if (seen.length > 0 && (authoredAt === undefined || authoredAt > seen[0]!)) add(command, 'commands', seen);
    }
  }
  for (const [piece, seen] of input.errors) if (input.written.includes(piece)) add(piece, 'errors', seen);
  return [...found.values()];
}

/** What the user or the model wrote in an entry: its text and, for a response, its calls' argument values. */
export function writtenText(entry: TranscriptEntry): string {
  const parts = [entry.text];
  for (const call of entry.toolCalls ?? []) parts.push(...argumentStrings(parseObject(call.argumentsJson)));
  return parts.join('\n');
}

function argumentStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value === 'number') return [String(value)];
  if (Array.isArray(value)) return value.flatMap(argumentStrings);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(argumentStrings);
  return [];
}

function toolSource(
  entry: TranscriptEntry,
  index: number,
  callsById: ReadonlyMap<string, { name: string; argumentsJson: string; entry: TranscriptEntry }>,
): ToolSource {
  const call = entry.toolCallId === undefined ? undefined : callsById.get(entry.toolCallId);
  const toolName = entry.toolName ?? call?.name ?? 'tool';
  if (call === undefined) return { entryIndex: index, toolName, text: entry.text };
  const argumentsValue = parseObject(call.argumentsJson);
  const readPath = READ_TOOLS.has(call.name) ? pathArgument(argumentsValue) : undefined;
  return {
    entryIndex: index,
    toolName,
    text: entry.text,
    callLine: callLine(call),
    ...(readPath === undefined ? {} : { readPath }),
  };
}

/** The line a runtime's deterministic brief gives this call (its first line names the call). */
export function callLine(call: { name: string; argumentsJson: string }): string {
  const alone: TranscriptEntry = {
    id: 'call',
    role: 'assistant',
    bytes: '',
    text: '',
    toolCalls: [{ id: 'call', name: call.name, argumentsJson: call.argumentsJson }],
  };
  return toolBrief(alone, []).split('\n', 1)[0]!;
}

export function pathArgument(argumentsValue: Record<string, unknown>): string | undefined {
  for (const key of PATH_ARGUMENTS) {
    const value = argumentsValue[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

export function parseObject(json: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(json);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function pushSource(map: Map<string, number[]>, piece: string, index: number): void {
  const list = map.get(piece);
  if (list === undefined) map.set(piece, [index]);
  else if (list.at(-1) !== index) list.push(index);
}

const PIECE_CHAR = /[\w./~-]/;

/**
 * Texts appended in order with the entry each came from, searched for exact strings. It holds
 * the entries' own strings (no copy); with a look-back it searches only the newest texts up to
 * that many characters, so a session of hundreds of MB costs each search a bounded scan.
 */
class Corpus {
  private readonly texts: string[] = [];
  private readonly indices: number[] = [];
  private first = 0;
  private chars = 0;

  constructor(private readonly lookBackChars = Number.POSITIVE_INFINITY) {}

  append(text: string, index: number): void {
    this.texts.push(text);
    this.indices.push(index);
    this.chars += text.length;
    while (this.chars > this.lookBackChars && this.first < this.texts.length - 1) {
      this.chars -= this.texts[this.first]!.length;
      this.first += 1;
    }
  }

  includes(piece: string): boolean {
    for (let position = this.texts.length - 1; position >= this.first; position -= 1)
      if (this.texts[position]!.includes(piece)) return true;
    return false;
  }

  /** The entries whose text holds `piece` standing whole, oldest first. */
  entriesHolding(piece: string): number[] {
    const found: number[] = [];
    for (let position = this.first; position < this.texts.length; position += 1)
      if (holdsWhole(this.texts[position]!, piece)) found.push(this.indices[position]!);
    return found;
  }
}

// `cd ~/app` is not in `cd ~/app-two`: a piece counts only where it stands whole.
function holdsWhole(text: string, piece: string): boolean {
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1))
    if (!PIECE_CHAR.test(text[at - 1] ?? '') && !PIECE_CHAR.test(text[at + piece.length] ?? '')) return true;
  return false;
}
