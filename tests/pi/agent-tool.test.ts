import type { Message, ToolResultMessage } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { PiSessionFolding } from '../../adapters/hosts/pi/session-registry.ts';
import { stableStringify } from '../../core/util/hashing.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { assertPairing, prefixHolds } from './support/prompt-checks.ts';

interface Step {
  readonly name: string;
  readonly call: (folding: PiSessionFolding) => Record<string, unknown>;
  readonly check: (result: ToolResultMessage, folding: PiSessionFolding, request: RecordedRequest) => void;
}

const text = (message: ToolResultMessage) =>
  message.content.map((block) => (block.type === 'text' ? block.text : '')).join('\n');
// Notices and receipts may follow the newest result, so look for the last tool result itself.
const lastResult = (request: RecordedRequest) =>
  [...request.messages].reverse().find((message) => message.role === 'toolResult') as ToolResultMessage;

describe('pi: the agent drives pi_fold_context in a real AgentSession', () => {
  it('gets exact, verified answers, clear refusals, and an ephemeral peek that only retires its own result', async () => {
    let folding: PiSessionFolding | undefined;
    const failures: string[] = [];
    let stepIndex = -1;
    let peekRequest = -1;
    let entryIdForPin = '';
    let foldId = '';
    const steps: Step[] = [
      {
        name: 'status',
        call: () => ({ action: 'status' }),
        check: (result) => {
          expect(result.isError).toBe(false);
          expect(text(result)).toMatch(/budget 183616 tokens/);
        },
      },
      {
        name: 'peek',
        call: (f) => {
          foldId = f.runtime.view.visibleFolds.find((placed) => placed.record.kind === 'tool')!.record.id;
          return { action: 'peek', id: foldId, bytes: 200_000 };
        },
        check: (result, f, request) => {
          expect(result.isError).toBe(false);
          peekRequest = request.index;
          const record = f.runtime.view.lattice.record(foldId)!;
          for (const part of record.parts) {
            if (part.kind !== 'entry') continue;
            const entry = sessionMessage(f, part.entryId);
            // The peek shows the entry's exact canonical bytes, as the session holds them.
            expect(text(result)).toContain(canonical(entry));
          }
        },
      },
      {
        name: 'brief',
        call: (f) => ({
          action: 'brief',
          id: f.runtime.view.memory.marks[0]!.id,
          text: 'Blob reads: nothing surprising, all words Greek letters.',
        }),
        check: (result, _f, request) => {
          expect(result.isError).toBe(false);
          expect(text(result)).toMatch(/brief kept for fold_/);
          expect(text(result)).toMatch(/next commit must free ≈\d+ tokens; standing marks will free ≈\d+ tokens/);
          // Give-back: the peek result is now a one-line stub, and it is the only message that changed.
          const before = requestAt(peekRequest);
          const changed = before.serialized
            .map((line, position) => (request.serialized[position] === line ? -1 : position))
            .filter((position) => position >= 0);
          expect(changed.length).toBe(1);
          const stub = request.messages[changed[0]!] as ToolResultMessage;
          expect(stub.role).toBe('toolResult');
          expect(text(stub).length).toBeLessThan(400);
          expect(text(stub)).toContain(foldId);
        },
      },
      {
        name: 'pin',
        call: (f) => {
          entryIdForPin = f.runtime.view.index.entries.at(-2)!.id;
          return { action: 'pin', ids: [entryIdForPin] };
        },
        check: (result, f) => {
          expect(result.isError).toBe(false);
          expect(f.runtime.view.memory.pins.has(entryIdForPin)).toBe(true);
        },
      },
      {
        name: 'unpin',
        call: () => ({ action: 'unpin', ids: [entryIdForPin] }),
        check: (result, f) => {
          expect(result.isError).toBe(false);
          expect(f.runtime.view.memory.pins.has(entryIdForPin)).toBe(false);
        },
      },
      {
        name: 'expand unknown id',
        call: () => ({ action: 'expand', id: 'fold_000000000000000000000000' }),
        check: (result) => {
          expect(result.isError).toBe(true);
          expect(text(result)).toMatch(
            /ACTION\.UNKNOWN_ID: expand: "fold_0+" is not a fold, mark or entry of this session/,
          );
        },
      },
      {
        name: 'peek without id',
        call: () => ({ action: 'peek' }),
        check: (result) => {
          expect(result.isError).toBe(true);
          expect(text(result)).toMatch(/peek\.id must be a non-empty string id/);
        },
      },
      {
        name: 'unknown action',
        call: () => ({ action: 'commit' }),
        check: (result) => {
          expect(result.isError).toBe(true);
          expect(text(result)).toMatch(/action/);
        },
      },
      {
        name: 'reboundary single mark = unmark',
        call: (f) => ({ action: 'reboundary', ids: [f.runtime.view.memory.marks.at(-1)!.id] }),
        check: (result) => {
          expect(result.isError).toBe(false);
        },
      },
      {
        name: 'unmark',
        call: (f) => ({ action: 'unmark', id: f.runtime.view.memory.marks[0]!.id }),
        check: (result) => {
          expect(result.isError).toBe(false);
          expect(text(result)).toMatch(/withdr|unmark/i);
        },
      },
      {
        name: 'expand',
        call: () => ({ action: 'expand', id: foldId }),
        check: (result, f) => {
          expect(result.isError).toBe(false);
          expect(text(result)).toMatch(/expanded fold_/);
          // The request carrying the expand answer is the rewrite that restored the source.
          expect(f.runtime.view.ledger.at(-1)!.causes).toContain('expand');
        },
      },
      {
        name: 'status tree after expand',
        call: () => ({ action: 'status', detail: 'tree' }),
        check: (_result, f, request) => {
          // The expanded fold's source is back in the window: its exact messages, as the session holds them.
          const record = f.runtime.view.lattice.record(foldId)!;
          for (const part of record.parts) {
            if (part.kind !== 'entry') continue;
            expect(request.serialized).toContain(JSON.stringify(sessionMessage(f, part.entryId)));
          }
        },
      },
    ];
    const requestsSeen: RecordedRequest[] = [];
    const requestAt = (index: number) => requestsSeen[index]!;
    const script = (request: RecordedRequest): ScriptedReply => {
      requestsSeen.push(request);
      if (stepIndex >= 0 && stepIndex < steps.length) {
        const step = steps[stepIndex]!;
        try {
          step.check(lastResult(request), folding!, request);
        } catch (error) {
          failures.push(`${step.name}: ${(error as Error).message}`);
        }
      }
      const ready =
        folding?.runtime.view.visibleFolds.some((placed) => placed.record.kind === 'tool') &&
        folding.runtime.view.memory.marks.length >= 3;
      if (stepIndex < 0 && !ready) {
        if (request.index > 150) return { kind: 'text', text: 'gave up' };
        return {
          kind: 'tools',
          calls: [
            {
              name: 'fetch_blob',
              arguments: { seed: request.index, size: 12_000 + ((request.index * 3_571) % 20_000) },
            },
          ],
        };
      }
      stepIndex += 1;
      if (stepIndex >= steps.length) return { kind: 'text', text: 'done' };
      return { kind: 'tools', calls: [{ name: 'pi_fold_context', arguments: steps[stepIndex]!.call(folding!) }] };
    };
    const pi = await openScriptedPi({
      script,
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: KEEP_BLOBS_RAW,
      },
    });
    folding = await pi.registration.sessions.forSession(pi.sessionManager);
    await pi.session.prompt('Read blobs, then curate your context.');
    await settle(pi.session);
    expect(failures).toEqual([]);
    expect(stepIndex).toBe(steps.length);
    expect(pi.errors).toEqual([]);
    for (const request of pi.requests) assertPairing(request);
    for (let index = 1; index < pi.requests.length; index += 1) {
      if (!prefixHolds(pi.requests[index - 1]!, pi.requests[index]!))
        expect(pi.ledger[index]!.causes.length).toBeGreaterThan(0);
    }

    function sessionMessage(f: PiSessionFolding, entryId: string): Message {
      const entry = pi.sessionManager.getEntry(entryId);
      if (entry === undefined || entry.type !== 'message')
        throw new Error(`no message entry ${entryId} for ${f.sessionId}`);
      return entry.message as Message;
    }
  }, 120_000);
});

/** The canonical bytes pi-fold stores for a message (stable key order). */
function canonical(message: Message): string {
  return stableStringify(message);
}
