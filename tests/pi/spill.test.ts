import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { blobText, openScriptedPi, type RecordedRequest, type Script, settle } from '../../testing/pi/scripted-pi.ts';

const BUDGET = 60_000;
/** 400 KB: about 100k tokens, well over the budget. */
const RESULT_NEEDLE = 'NEEDLE-IN-THE-RESULT-3b9c';
const bigResult = `${blobText(5, 200_000)} ${RESULT_NEEDLE} ${blobText(6, 199_973)}`;
const ARGUMENT_NEEDLE = 'NEEDLE-IN-THE-ARGUMENT-5d0e';
/** A 2 MB note the model writes: about 500k tokens in one tool call. */
const bigNote = `${'n'.repeat(1_000_000)}${ARGUMENT_NEEDLE}${'m'.repeat(1_000_000)}`;

const readLogTool: ToolDefinition = {
  name: 'read_log',
  label: 'Read log',
  description: 'Read the build log',
  parameters: Type.Object({ path: Type.String() }),
  async execute() {
    return { content: [{ type: 'text', text: bigResult }], details: {} };
  },
};

const writeNoteTool: ToolDefinition = {
  name: 'write_note',
  label: 'Write note',
  description: 'Write a note to disk',
  parameters: Type.Object({ path: Type.String(), content: Type.String() }),
  async execute(_id, params) {
    return {
      content: [{ type: 'text', text: `wrote ${(params as { content: string }).content.length} chars` }],
      details: {},
    };
  },
};

/** Text of every pi_fold_context result the model has been sent, in order. */
function foldToolResults(request: RecordedRequest): string[] {
  return request.messages.flatMap((message) =>
    message.role === 'toolResult' && message.toolName === 'pi_fold_context'
      ? message.content.map((block) => (block.type === 'text' ? block.text : ''))
      : [],
  );
}

describe('pi: spill at ingestion in a real AgentSession (B6.2)', () => {
  it('a 400 KB result and a 2 MB argument do not end the session; search finds their middles, peek returns exact bytes, a tampered artifact is refused', async () => {
    const resultNeedle = RESULT_NEEDLE;
    const script: Script = (request) => {
      const fold = (argumentsObject: Record<string, unknown>) => ({
        kind: 'tools' as const,
        calls: [{ name: 'pi_fold_context', arguments: argumentsObject }],
      });
      switch (request.index) {
        case 0:
          return { kind: 'tools', calls: [{ name: 'read_log', arguments: { path: 'build.log' } }] };
        case 1:
          return { kind: 'tools', calls: [{ name: 'write_note', arguments: { path: 'notes.txt', content: bigNote } }] };
        case 2:
          return fold({ action: 'search', pattern: resultNeedle });
        case 3:
          return fold({ action: 'search', pattern: ARGUMENT_NEEDLE });
        default:
          return { kind: 'text', text: 'Found both.' };
      }
    };
    const evidenceRoot = mkdtempSync(join(tmpdir(), 'pi-fold-spill-pi-'));
    const pi = await openScriptedPi({
      script,
      extraTools: [readLogTool, writeNoteTool],
      fold: {
        foldStore: new MemoryFoldStore(),
        evidenceStore: new FsEvidenceStore({ root: evidenceRoot }),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: { providerInputBudget: BUDGET },
      },
    });
    await pi.session.prompt('Read the blob and keep a note.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    expect(pi.requests).toHaveLength(5);
    for (const request of pi.requests)
      expect(request.promptTokens, `request ${request.index} fits the budget`).toBeLessThanOrEqual(BUDGET);

    // Pi's session is never edited: it keeps the whole result and the whole argument.
    const branch = JSON.stringify(pi.sessionManager.getBranch());
    expect(branch.includes(resultNeedle) && branch.includes(ARGUMENT_NEEDLE), 'the session file holds every byte').toBe(
      true,
    );
    // The model saw head, pointer and tail of each, not the middles.
    const beforeSearching = pi.requests[2]!.serialized.join('\n');
    expect(
      beforeSearching.includes(resultNeedle) || beforeSearching.includes(ARGUMENT_NEEDLE),
      'the middles are not in the window',
    ).toBe(false);
    expect(
      /\[pi-fold spilled sp_[0-9a-f]{20}: this read_log result is 400000 bytes/.test(beforeSearching),
      'the result is spilled',
    ).toBe(true);
    expect(
      /\[pi-fold spilled sp_[0-9a-f]{20}: argument \\"content\\" of this write_note call is 2000027 bytes/.test(
        beforeSearching,
      ),
      'the argument is spilled',
    ).toBe(true);

    // The agent's search found each middle in the exact, verified artifact.
    const [resultSearch, argumentSearch] = foldToolResults(pi.requests[4]!);
    expect(resultSearch).toContain(resultNeedle);
    expect(resultSearch).toMatch(/spilled items \(exact, verified source\)/);
    expect(argumentSearch).toContain(ARGUMENT_NEEDLE);

    // peek returns the exact bytes of the result, slice by slice.
    const { runtime } = await pi.registration.sessions.forSession(pi.sessionManager);
    const resultId = `sp_${sha256Hex(bigResult).slice(0, 20)}`;
    // Peek offsets are bytes into the peek text: the item starts after its header line.
    const pointer = runtime.view.spills.pointer(resultId)!;
    let offset = Buffer.byteLength(
      `spill ${pointer.id} | ${pointer.bytes} bytes | sha256 ${pointer.sha256} verified\n`,
    );
    let read = '';
    for (;;) {
      const answer = await runtime.act({ action: 'peek', id: resultId, offset, bytes: 200_000, ephemeral: false });
      read += answer.text.slice(0, answer.text.lastIndexOf('\n[bytes '));
      const next = answer.data.nextOffset as number | undefined;
      if (next === undefined) break;
      offset = next;
    }
    expect(read === bigResult, 'peek returned the exact 400 KB').toBe(true);

    // A tampered artifact is refused by name; nothing of it is shown.
    const argumentSha = sha256Hex(bigNote);
    const artifact = join(evidenceRoot, 'evidence', runtime.view.sessionId, argumentSha);
    chmodSync(artifact, 0o644);
    writeFileSync(artifact, bigNote.replace(ARGUMENT_NEEDLE, 'NEEDLE-IN-THE-ARGUMENT-0000'));
    const refused = await runtime
      .act({ action: 'peek', id: `sp_${argumentSha.slice(0, 20)}` })
      .catch((error: unknown) => error);
    expect(FoldError.isInstance(refused) && refused.code).toBe('STORE.HASH_MISMATCH');
    pi.session.dispose();
  }, 120_000);
});
