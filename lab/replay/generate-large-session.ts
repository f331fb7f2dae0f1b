/**
 * Grow a real Pi session into a large one, to measure `pi-fold replay` on files of hundreds
 * of MB (the shared transcripts stop at a few MB).
 *
 *   npx tsx lab/replay/generate-large-session.ts <session.jsonl> <target MB> <out.jsonl>
 *
 * The output is a Pi v3 session: one header, then the input's active branch repeated until
 * the target size is reached, as one linear chain. Every entry gets a fresh 8-hex id and the
 * previous entry as parent; tool call ids get a per-repetition suffix so each result still
 * pairs with its call (the replay plan keys results by call id, and a repeated id would
 * answer every repetition with the last one's result); timestamps shift by one recording
 * span per repetition so they keep increasing. It stops only before a user message, so no
 * tool call is left without its result. The input is re-streamed once per repetition and
 * the output written as it goes: the generator holds one repetition's ids, never the file.
 * Keep the output under /tmp, not in the repository.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import { readJsonLines } from '../transcripts/jsonl-lines.ts';

type Line = Record<string, unknown>;

/** What one pass over the input tells: its header, which v3 entries are on the active branch, and the span of its timestamps. */
interface InputShape {
  readonly header: Line;
  /** Undefined for v1 (every line is on the one branch). */
  readonly branch: ReadonlySet<string> | undefined;
  readonly spanMs: number;
}

async function readShape(path: string): Promise<InputShape> {
  let header: Line | undefined;
  const parents = new Map<string, string | undefined>();
  let leafId: string | undefined;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for await (const parsed of readJsonLines(path)) {
    if ('problem' in parsed) continue;
    const value = parsed.value;
    if (header === undefined) {
      if (value.type !== 'session') throw new Error(`${path}: line ${parsed.line} is not a Pi session header`);
      header = value;
      continue;
    }
    const time = Date.parse(String(value.timestamp));
    if (Number.isFinite(time)) [first, last] = [Math.min(first, time), Math.max(last, time)];
    if (typeof value.id === 'string') {
      parents.set(value.id, typeof value.parentId === 'string' ? value.parentId : undefined);
      leafId = value.id;
    }
  }
  if (header === undefined) throw new Error(`${path}: empty file`);
  let branch: Set<string> | undefined;
  if (header.version === 3) {
    branch = new Set();
    for (let id = leafId; id !== undefined && !branch.has(id); id = parents.get(id)) branch.add(id);
  }
  // One second between repetitions, so the next one starts after the last one ended.
  return { header, branch, spanMs: (Number.isFinite(first) ? last - first : 0) + 1_000 };
}

/** The nth fresh id: a bijection of n on 32 bits (unique without a set), shown as 8 hex digits like Pi's. */
function entryId(n: number): string {
  return (Math.imul(n + 1, 0x9e3779b1) >>> 0).toString(16).padStart(8, '0');
}

/** One entry of one repetition, re-identified, re-chained and shifted in time. */
function repeatEntry(
  value: Line,
  id: string,
  parentId: string | null,
  repetition: number,
  spanMs: number,
  idsThisRepetition: Map<string, string>,
): Line {
  const shift = repetition * spanMs;
  const callId = (old: unknown): unknown => (typeof old === 'string' ? `${old}_r${repetition}` : old);
  const time = Date.parse(String(value.timestamp));
  const entry: Line = {
    ...value,
    id,
    parentId,
    ...(Number.isFinite(time) ? { timestamp: new Date(time + shift).toISOString() } : {}),
  };
  if (value.type === 'compaction') {
    // v1 points at the first kept entry by index, v3 by id: either way, this repetition's copy.
    const kept =
      typeof value.firstKeptEntryIndex === 'number' ? `L${value.firstKeptEntryIndex}` : value.firstKeptEntryId;
    delete entry.firstKeptEntryIndex;
    entry.firstKeptEntryId = (typeof kept === 'string' ? idsThisRepetition.get(kept) : undefined) ?? parentId;
  }
  const message = value.message as Line | undefined;
  if (value.type !== 'message' || typeof message !== 'object' || message === null) return entry;
  const copy: Line = { ...message };
  if (typeof message.timestamp === 'number') copy.timestamp = message.timestamp + shift;
  if (message.role === 'toolResult') copy.toolCallId = callId(message.toolCallId);
  if (message.role === 'assistant' && Array.isArray(message.content)) {
    copy.content = (message.content as Line[]).map((block) =>
      block?.type === 'toolCall' ? { ...block, id: callId(block.id) } : block,
    );
  }
  entry.message = copy;
  return entry;
}

async function main(): Promise<void> {
  const [input, targetText, output] = process.argv.slice(2);
  const targetMb = Number(targetText);
  if (input === undefined || output === undefined || !(targetMb > 0)) {
    throw new Error('usage: generate-large-session.ts <session.jsonl> <target MB> <out.jsonl>');
  }
  const targetBytes = targetMb * 1_048_576;
  const shape = await readShape(input);
  const file = openSync(output, 'w');
  let bytes = 0;
  const write = (value: Line): void => {
    const text = `${JSON.stringify(value)}\n`;
    bytes += Buffer.byteLength(text);
    writeSync(file, text);
  };
  write({ ...shape.header, version: 3, id: randomUUID() });
  let entries = 0;
  let previous: string | null = null;
  let repetition = 0;
  outer: for (; ; repetition += 1) {
    // Old id (v3) or `L<index>` (v1, as firstKeptEntryIndex counts lines) → this repetition's id.
    const idsThisRepetition = new Map<string, string>();
    let index = 0;
    for await (const parsed of readJsonLines(input)) {
      if ('problem' in parsed || parsed.value.type === 'session') continue;
      index += 1;
      const value = parsed.value;
      if (shape.branch !== undefined && !(typeof value.id === 'string' && shape.branch.has(value.id))) continue;
      const isUser = value.type === 'message' && (value.message as Line | undefined)?.role === 'user';
      if (isUser && bytes >= targetBytes) break outer;
      const id = entryId(entries);
      idsThisRepetition.set(typeof value.id === 'string' ? value.id : `L${index}`, id);
      write(repeatEntry(value, id, previous, repetition, shape.spanMs, idsThisRepetition));
      previous = id;
      entries += 1;
    }
    if (bytes >= targetBytes) break;
  }
  closeSync(file);
  process.stderr.write(
    `${output}: ${(bytes / 1_048_576).toFixed(1)} MB, ${entries} entries, ${repetition + 1} repetition(s) of ${input}\n`,
  );
}

await main();
