import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { FoldError } from '../../core/fold-error.ts';

/** A parsed JSON line, or why it could not be parsed. */
export type JsonLine =
  | { readonly line: number; readonly value: Record<string, unknown> }
  | { readonly line: number; readonly problem: string };

/**
 * Stream a JSONL file line by line (files of hundreds of MB are never loaded whole). A line
 * that is not a JSON object is reported with its number, not thrown: real archives carry a
 * few broken lines, and one must not cost the rest.
 */
export async function* readJsonLines(path: string): AsyncGenerator<JsonLine> {
  const stream = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', (error) =>
      reject(
        new FoldError('TRANSCRIPT.INVALID_ENTRY', `cannot read transcript ${path}: ${error.message}`, {
          cause: error,
          details: { path },
        }),
      ),
    );
  });
  await opened;
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let number = 0;
  for await (const text of lines) {
    number += 1;
    if (text.trim().length === 0) continue;
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        yield { line: number, problem: 'not a JSON object' };
      else yield { line: number, value: value as Record<string, unknown> };
    } catch (error) {
      yield { line: number, problem: `invalid JSON (${(error as Error).message.slice(0, 80)})` };
    }
  }
}
