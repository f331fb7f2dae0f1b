import { createReadStream } from 'node:fs';
import { FoldError } from '../../core/fold-error.ts';
import { fileFailure, MAX_TRANSCRIPT_LINE_BYTES, type TranscriptReadOptions } from './transcript-file.ts';

/** A parsed JSON line, or why it could not be parsed. */
export type JsonLine =
  | { readonly line: number; readonly value: Record<string, unknown> }
  | { readonly line: number; readonly problem: string };

const NEWLINE = 0x0a;

/**
 * Stream a JSONL file line by line (files of hundreds of MB are never loaded whole). A line
 * that is not a JSON object is reported with its number, not thrown: real archives carry a
 * few broken lines, and one must not cost the rest. A line longer than `maxLineBytes` is
 * refused (`TRANSCRIPT.LINE_TOO_LONG`): past V8's longest string it could not be read at all.
 */
export async function* readJsonLines(path: string, options: TranscriptReadOptions = {}): AsyncGenerator<JsonLine> {
  const maxLineBytes = options.maxLineBytes ?? MAX_TRANSCRIPT_LINE_BYTES;
  const stream = createReadStream(path);
  await new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error) => reject(fileFailure(path, error)));
  });
  // Bytes, not text: a line is cut at its newline before it is decoded, so its length is checked first.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let number = 0;
  const takeLine = (last: Buffer): JsonLine | undefined => {
    number += 1;
    const bytes = pending.length === 0 ? last : Buffer.concat([...pending, last]);
    pending = [];
    pendingBytes = 0;
    return parseLine(number, bytes.toString('utf8'));
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let newline = chunk.indexOf(NEWLINE); newline >= 0; newline = chunk.indexOf(NEWLINE, start)) {
        assertLineFits(path, number + 1, pendingBytes + newline - start, maxLineBytes);
        const parsed = takeLine(chunk.subarray(start, newline));
        if (parsed !== undefined) yield parsed;
        start = newline + 1;
      }
      if (start < chunk.length) {
        assertLineFits(path, number + 1, pendingBytes + chunk.length - start, maxLineBytes);
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
      }
    }
  } catch (error) {
    throw FoldError.isInstance(error) ? error : fileFailure(path, error);
  } finally {
    stream.destroy();
  }
  if (pendingBytes > 0) {
    const parsed = takeLine(Buffer.alloc(0));
    if (parsed !== undefined) yield parsed;
  }
}

function assertLineFits(path: string, line: number, bytes: number, maxLineBytes: number): void {
  if (bytes <= maxLineBytes) return;
  throw new FoldError(
    'TRANSCRIPT.LINE_TOO_LONG',
    `${path}: line ${line} is over ${maxLineBytes} bytes, the longest line a transcript may have (V8 holds no longer string), so it cannot be read; split or trim that entry`,
    { details: { path, line, maxLineBytes } },
  );
}

function parseLine(line: number, text: string): JsonLine | undefined {
  if (text.trim().length === 0) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { line, problem: 'not a JSON object' };
    return { line, value: value as Record<string, unknown> };
  } catch (error) {
    return { line, problem: `invalid JSON (${(error as Error).message.slice(0, 80)})` };
  }
}
