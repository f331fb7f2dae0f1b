import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { blobText } from '../../testing/pi/scripted-pi.ts';

/**
 * A synthetic Pi session file for the context-edit benchmark: one user message, then `batches`
 * tool batches (an assistant call of `fetch_blob` and its `resultBytes` result). With
 * `edited`, the file ends with the `context_edit` entries a commit would have left: every
 * batch but the newest `keepRaw` is omitted, and the first of each `chapterSize` batches is
 * kept as a one-line placeholder (its assistant content replaced by text, its result omitted).
 */
export interface SessionFileShape {
  readonly batches: number;
  readonly resultBytes: number;
  readonly keepRaw: number;
  readonly chapterSize: number;
}

/** The call id of history batch `index`: the rewriting hook and the edits pick the same batches by it. */
export function historyCallId(index: number): string {
  return `hist_${index}`;
}

/** Whether history batch `index` is folded (older than the newest `keepRaw`). */
export function isFolded(shape: SessionFileShape, index: number): boolean {
  return index < shape.batches - shape.keepRaw;
}

/** The placeholder text the first batch of each folded chapter shows. */
export function placeholderText(shape: SessionFileShape, index: number): string {
  const last = Math.min(index + shape.chapterSize, shape.batches - shape.keepRaw) - 1;
  return `[folded chapter: batches ${index}–${last}; peek f_${index} for the exact bytes]`;
}

const START = Date.parse('2026-11-01T00:00:00.000Z');

function entryId(sequence: number): string {
  return sequence.toString(16).padStart(8, '0');
}

/** Write the session to `path`; resolves with the file's size in bytes. */
export async function writeSessionFile(
  path: string,
  shape: SessionFileShape,
  options: {
    readonly cwd: string;
    readonly edited: boolean;
    /** Close a turn (an answer, then a new prompt) every this many batches, so a runtime can fold whole turns. */
    readonly turnBatches?: number;
  },
): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  let sequence = 0;
  let parentId: string | null = null;
  const write = async (line: Record<string, unknown>) => {
    const text = `${JSON.stringify(line)}\n`;
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  const append = async (body: Record<string, unknown>): Promise<string> => {
    sequence += 1;
    const id = entryId(sequence);
    await write({ ...body, id, parentId, timestamp: new Date(START + sequence * 1000).toISOString() });
    parentId = id;
    return id;
  };
  await write({
    type: 'session',
    version: 3,
    id: 'bench-edited-session',
    timestamp: new Date(START).toISOString(),
    cwd: options.cwd,
  });
  await append({ type: 'message', message: { role: 'user', content: 'Read the blobs.', timestamp: START } });
  const ids: { assistant: string; result: string }[] = [];
  for (let index = 0; index < shape.batches; index += 1) {
    const turnBatches = options.turnBatches;
    if (turnBatches !== undefined && index > 0 && index % turnBatches === 0) await appendTurnBreak(append, index);
    ids.push(await appendBatch(append, shape, index));
  }
  if (options.edited) {
    for (let index = 0; isFolded(shape, index); index += 1) {
      const { assistant, result } = ids[index]!;
      const replacement =
        index % shape.chapterSize === 0 ? { content: [{ type: 'text', text: placeholderText(shape, index) }] } : null;
      await append({ type: 'context_edit', targetId: assistant, replacement });
      await append({ type: 'context_edit', targetId: result, replacement: null });
    }
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

async function appendBatch(
  append: (body: Record<string, unknown>) => Promise<string>,
  shape: SessionFileShape,
  index: number,
): Promise<{ assistant: string; result: string }> {
  const timestamp = START + (index + 1) * 1000;
  const assistant = await append({
    type: 'message',
    message: {
      role: 'assistant',
      content: [
        {
          type: 'toolCall',
          id: historyCallId(index),
          name: 'fetch_blob',
          arguments: { seed: index, size: shape.resultBytes },
        },
      ],
      api: 'scripted-api',
      provider: 'scripted',
      model: 's1',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'toolUse',
      timestamp,
    },
  });
  const result = await append({
    type: 'message',
    message: {
      role: 'toolResult',
      toolCallId: historyCallId(index),
      toolName: 'fetch_blob',
      content: [{ type: 'text', text: blobText(index, shape.resultBytes) }],
      isError: false,
      timestamp: timestamp + 1,
    },
  });
  return { assistant, result };
}

/** An answer that ends the turn, then the prompt of the next one. */
async function appendTurnBreak(
  append: (body: Record<string, unknown>) => Promise<string>,
  index: number,
): Promise<void> {
  const timestamp = START + (index + 1) * 1000 - 500;
  await append({
    type: 'message',
    message: {
      role: 'assistant',
      content: [{ type: 'text', text: `Read up to batch ${index - 1}.` }],
      api: 'scripted-api',
      provider: 'scripted',
      model: 's1',
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: 'stop',
      timestamp,
    },
  });
  await append({
    type: 'message',
    message: { role: 'user', content: `Read from batch ${index} on.`, timestamp: timestamp + 1 },
  });
}
