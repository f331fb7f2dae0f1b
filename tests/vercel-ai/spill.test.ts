import { chmodSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ModelMessage, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { type Script, serializePrompt } from '../../testing/vercel-ai/scripted-model.ts';
import { type LoopKind, runLoop } from './support/run-loop.ts';

const BUDGET = 40_000;
const RESULT_NEEDLE = 'NEEDLE-IN-THE-RESULT-7f3a';
const ARGUMENT_NEEDLE = 'NEEDLE-IN-THE-ARGUMENT-91c2';

/** 400 KB of log lines with one needle in the middle: 111k tokens, almost three budgets. */
const bigResult = (() => {
  const line = (n: number) =>
    `2026-12-01T08:00:${String(n % 60).padStart(2, '0')}Z worker ${n % 7} processed batch ${n} ok\n`;
  let text = '';
  for (let n = 0; text.length < 200_000; n += 1) text += line(n);
  text += `${RESULT_NEEDLE}\n`;
  for (let n = 0; text.length < 400_000; n += 1) text += line(n + 10_000);
  return text;
})();

/** A 2 MB file body the model writes, with one needle in the middle. */
const bigArgument = `${'a'.repeat(1_000_000)}${ARGUMENT_NEEDLE}${'z'.repeat(1_000_000)}`;

const tools = {
  read_log: tool({
    description: 'Read the build log',
    inputSchema: z.object({ path: z.string() }),
    execute: async () => bigResult,
  }),
  write_file: tool({
    description: 'Write a file',
    inputSchema: z.object({ path: z.string(), content: z.string() }),
    execute: async ({ content }) => `wrote ${content.length} bytes`,
  }),
};

/** Read the huge log, write the huge file, then find both needles and read one back. */
const script: Script = ({ call }) => {
  const fold = (input: unknown) => ({ toolCalls: [{ toolName: 'fold_context', input }] });
  switch (call) {
    case 0:
      return { toolCalls: [{ toolName: 'read_log', input: { path: 'build.log' } }] };
    case 1:
      return { toolCalls: [{ toolName: 'write_file', input: { path: 'blob.txt', content: bigArgument } }] };
    case 2:
      return fold({ action: 'search', pattern: RESULT_NEEDLE });
    case 3:
      return fold({ action: 'search', pattern: ARGUMENT_NEEDLE });
    default:
      return { text: 'Found both.' };
  }
};

/** The text of every fold_context result in a history, in order. */
function foldToolResults(messages: readonly ModelMessage[]): string[] {
  const texts: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (
        part.type === 'tool-result' &&
        part.toolName === 'fold_context' &&
        (part.output.type === 'text' || part.output.type === 'error-text')
      )
        texts.push(part.output.value);
    }
  }
  return texts;
}

describe.each<LoopKind>(['generateText', 'streamText'])('spill at ingestion through %s (B6.2)', (kind) => {
  it('a 400 KB result and a 2 MB argument do not end the loop; search finds their middles, peek returns their exact bytes, a tampered artifact is refused', async () => {
    const storeRoot = mkdtempSync(join(tmpdir(), 'pi-fold-spill-ai-'));
    const sessionId = `spill-${kind}`;
    const run = await runLoop({
      kind,
      script,
      maxSteps: 8,
      folding: { sessionId, store: 'fs', storeRoot, settings: { providerInputBudget: BUDGET } },
      tools,
    });
    const { folding, model } = run;
    expect(run.errors).toEqual([]);
    expect(model.calls).toHaveLength(5);
    for (const call of model.calls) expect(call.tokens).toBeLessThanOrEqual(BUDGET);

    // The transcript is the host's: the SDK's own messages still hold every byte.
    const history = JSON.stringify(run.messages);
    expect(history).toContain(RESULT_NEEDLE);
    expect(history).toContain(ARGUMENT_NEEDLE);
    // What the model saw: head, pointer and tail of each, not the middles.
    const lastPrompt = serializePrompt(model.calls.at(-1)!.prompt);
    // (Checked with test(): a failing toMatch would print the whole prompt.)
    expect(
      /\[pi-fold spilled sp_[0-9a-f]{20}: this read_log result is 400\d{3} bytes/.test(lastPrompt),
      'the result is spilled',
    ).toBe(true);
    expect(
      /\[pi-fold spilled sp_[0-9a-f]{20}: argument \\"content\\" of this write_file call is 2000027 bytes/.test(
        lastPrompt,
      ),
      'the argument is spilled',
    ).toBe(true);
    const beforeSearching = serializePrompt(model.calls[2]!.prompt);
    expect(
      beforeSearching.includes(RESULT_NEEDLE) || beforeSearching.includes(ARGUMENT_NEEDLE),
      'the middles are not in the window',
    ).toBe(false);
    expect(lastPrompt.length).toBeLessThan(60_000);

    // search found each needle in the exact, verified artifact.
    const [resultSearch, argumentSearch] = foldToolResults(run.messages);
    expect(resultSearch).toMatch(/matches 1-1 from 0 folds and 2 spilled items/);
    expect(resultSearch).toContain(RESULT_NEEDLE);
    expect(argumentSearch).toContain(ARGUMENT_NEEDLE);

    // peek, slice by slice, returns the exact bytes of the spilled argument.
    const spills = [...lastPrompt.matchAll(/\[pi-fold spilled (sp_[0-9a-f]{20})/g)].map((match) => match[1]!);
    const argumentId = spills.find(
      (id) => folding.runtime.view.spills.pointer(id)!.bytes === Buffer.byteLength(bigArgument),
    )!;
    // Peek offsets are bytes into the peek text: the item starts after its header line.
    const pointer = folding.runtime.view.spills.pointer(argumentId)!;
    let offset = Buffer.byteLength(
      `spill ${pointer.id} | ${pointer.bytes} bytes | sha256 ${pointer.sha256} verified\n`,
    );
    let read = '';
    for (;;) {
      const answer = await folding.runtime.act({
        action: 'peek',
        id: argumentId,
        offset,
        bytes: 200_000,
        ephemeral: false,
      });
      read += answer.text.slice(0, answer.text.lastIndexOf('\n[bytes '));
      const next = answer.data.nextOffset as number | undefined;
      if (next === undefined) break;
      offset = next;
    }
    expect(read === bigArgument, 'peek returned the exact 2 MB').toBe(true);
    // The offsets handed out read what they promise: the pointer line's, the first omitted byte;
    // a search hit's, the needle.
    const lineOffset = Number(
      new RegExp(`"id\\\\?":\\\\?"${argumentId}\\\\?",\\\\?"offset\\\\?":(\\d+)`).exec(lastPrompt)![1],
    );
    const atLine = await folding.runtime.act({
      action: 'peek',
      id: argumentId,
      offset: lineOffset,
      bytes: 1024,
      ephemeral: false,
    });
    expect(atLine.text.startsWith(bigArgument.slice(pointer.headBytes, pointer.headBytes + 1000))).toBe(true);
    const hitOffset = Number(/"offset":(\d+)/.exec(argumentSearch!)![1]);
    const atHit = await folding.runtime.act({
      action: 'peek',
      id: argumentId,
      offset: hitOffset,
      bytes: 1024,
      ephemeral: false,
    });
    expect(atHit.text).toContain(ARGUMENT_NEEDLE);

    // A tampered artifact is refused by name, and nothing of it is shown.
    const resultId = spills.find((id) => id !== argumentId)!;
    const sha = folding.runtime.view.spills.pointer(resultId)!.sha256;
    expect(sha).toBe(sha256Hex(bigResult));
    const directory = join(storeRoot, 'evidence', sessionId);
    expect(readdirSync(directory)).toContain(sha);
    chmodSync(join(directory, sha), 0o644);
    writeFileSync(join(directory, sha), bigResult.replace(RESULT_NEEDLE, 'NEEDLE-IN-THE-RESULT-0000'));
    const refused = await folding.runtime.act({ action: 'peek', id: resultId }).catch((error: unknown) => error);
    expect(FoldError.isInstance(refused) && refused.code).toBe('STORE.HASH_MISMATCH');
    const searchRefused = await folding.runtime
      .act({ action: 'search', pattern: 'NEEDLE' })
      .catch((error: unknown) => error);
    expect(FoldError.isInstance(searchRefused) && searchRefused.code).toBe('STORE.HASH_MISMATCH');
    await folding.dispose();
  }, 120_000);
});
