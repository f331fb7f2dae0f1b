import type { Message } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { summarizeForCompaction } from '../../lab/workload/lab-summarizer.ts';
import { PAYLOAD } from '../../lab/workload/stage-tools.ts';
import { foldNaming } from '../../lab/workload/staged-agent.ts';
import {
  foldMentioning,
  readCallId,
  readMentions,
  resultMention,
  searchHitShowing,
  visibleFiles,
  visibleLine,
} from '../../lab/workload/window-files.ts';

const FOLD_A = `fold_${'a'.repeat(24)}`;
const FOLD_B = `fold_${'b'.repeat(24)}`;
const FOLD_C = `fold_${'c'.repeat(24)}`;

describe('staged agent: finding the fold to peek', () => {
  it('takes the fold whose placeholder names repo_stage(stage=N), not a neighbour or a note', () => {
    const window = [
      `[folded tool ${FOLD_A} · 2 entries · 9000 chars · sha256 0123456789ab]`,
      'repo_stage(stage=12)',
      'agent note: Stage 11 notes: a.ts: 10 lines',
      `exact source: peek with pi_fold_context {"action":"peek","id":"${FOLD_A}"}`,
      `[folded tool ${FOLD_B} · 2 entries · 9000 chars · sha256 0123456789ab]`,
      'repo_stage(stage=13)',
    ].join('\n');
    expect(foldNaming(window, 12, new Set())).toBe(FOLD_A);
    expect(foldNaming(window, 13, new Set())).toBe(FOLD_B);
    expect(foldNaming(window, 11, new Set())).toBeUndefined();
    expect(foldNaming(window, 1, new Set())).toBeUndefined();
  });

  it('reads a consolidation brief line by line and skips folds already peeked', () => {
    const window = [
      `[folded consolidation ${FOLD_C} · 40 entries]`,
      'covers 2 folds',
      `${FOLD_A} (tool): repo_stage(stage=3) result (9000 chars) starts: Stage 3 of 64`,
      `${FOLD_B} (tool): repo_stage(stage=4) result`,
    ].join('\n');
    expect(foldNaming(window, 4, new Set())).toBe(FOLD_B);
    expect(foldNaming(window, 4, new Set([FOLD_B]))).toBeUndefined();
  });
});

describe('native baseline: the stated summarizer', () => {
  it('keeps first lines and agent notes, drops what sits deeper in a tool result, and stays capped', () => {
    const stage = [
      'Stage 7 of 64 · zod@4.6.7/src · 5 files',
      'Files in this slice:',
      PAYLOAD.marker(7, 'amber-0042'),
    ].join('\n');
    const conversation = [
      '[User]: do the assignment',
      '[Assistant]: Stage 6 notes: a.ts: 10 lines, export const a',
      '[Assistant tool calls]: repo_stage(stage=7)',
      `[Tool result]: ${stage}`,
    ].join('\n');
    const prompt: Message = {
      role: 'user',
      content: [{ type: 'text', text: `<conversation>\n${conversation}\n</conversation>\n\nSummarize.` }],
      timestamp: 0,
    };
    const summary = summarizeForCompaction([prompt]);
    expect(summary).toContain('Stage 6 notes: a.ts: 10 lines');
    expect(summary).toContain('Stage 7 of 64');
    expect(summary).not.toContain('amber-0042');
    const long: Message = {
      role: 'user',
      content: `<conversation>\n${Array.from({ length: 500 }, (_, index) => `[Assistant]: note ${index} ${'x'.repeat(100)}`).join('\n')}\n</conversation>`,
      timestamp: 0,
    };
    const capped = summarizeForCompaction([long]);
    expect(capped.length).toBeLessThan(8200);
    expect(capped).toContain('note 499');
    expect(capped).not.toContain('note 0 ');
  });
});

describe('staged agent: which files its window shows', () => {
  const call = (id: string, path: string) => ({ type: 'toolCall' as const, id, name: 'read', arguments: { path } });
  const assistant = (...content: ReturnType<typeof call>[]): Message => ({
    role: 'assistant',
    content,
    api: 'x',
    provider: 'x',
    model: 'x',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'toolUse',
    timestamp: 0,
  });
  const result = (toolCallId: string, toolName: string, text: string): Message => ({
    role: 'toolResult',
    toolCallId,
    toolName,
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 0,
  });
  const FILE = 'line one\n  const second = line(2);\nthird';

  it('sees a raw read result, not a stub or placeholder left where a folded one was', () => {
    const raw = [
      assistant(call('c1', 'a.ts'), call('c2', 'b.ts')),
      result('c1', 'read', FILE),
      result('c2', 'read', `[result folded into ${FOLD_A}, described in the first result of this batch]`),
    ];
    const files = visibleFiles(raw);
    expect(visibleLine(files, 'a.ts', 2)).toBe('const second = line(2);');
    expect(visibleLine(files, 'b.ts', 1)).toBeUndefined();
    const placeholder = [
      assistant(call('c1', 'a.ts')),
      result('c1', 'read', `[folded tool ${FOLD_A} · 2 entries · 90 chars · sha256 0123]\nread(path="a.ts")`),
    ];
    expect(visibleLine(visibleFiles(placeholder), 'a.ts', 1)).toBeUndefined();
  });

  it("reads a file out of a peek's exact source, and by call id when the peek holds the result alone", () => {
    const entryLine = (message: object) => JSON.stringify(message);
    const peekText = [
      `fold ${FOLD_A} | tool | 2 entries`,
      '--- entry e1 | sha256 00 verified',
      entryLine({ role: 'assistant', content: [call('c9', 'z.ts')] }),
      '--- entry e2 | sha256 01 verified',
      entryLine({ role: 'toolResult', toolCallId: 'c9', toolName: 'read', content: [{ type: 'text', text: FILE }] }),
    ].join('\n');
    const peeked = [assistant(), result('p1', 'pi_fold_context', peekText)];
    expect(visibleLine(visibleFiles(peeked), 'z.ts', 3)).toBe('third');
    const resultsOnly = [
      assistant(),
      result(
        'p2',
        'pi_fold_context',
        [
          `fold ${FOLD_B} | tool | 1 entries`,
          entryLine({
            role: 'toolResult',
            toolCallId: 'c9',
            toolName: 'read',
            content: [{ type: 'text', text: FILE }],
          }),
        ].join('\n'),
      ),
    ];
    expect(visibleLine(visibleFiles(resultsOnly), 'z.ts', 3)).toBeUndefined();
    expect(visibleLine(visibleFiles(resultsOnly), 'z.ts', 3, 'c9')).toBe('third');
  });

  it("finds the read's call id and the fold a search hit names", () => {
    const hits = [
      'search "x" (literal): matches 1-1 from 3 folds (exact, verified source)',
      `1. fold ${FOLD_B} · entry e1 · byte 48 · read: {"action":"peek","id":"${FOLD_B}","offset":4634}`,
      '   {"content":[{"arguments":{"path":"v3/a.ts"},"id":"call_3_2","name":"read","type":"toolCall"}]…',
      `1. fold ${FOLD_C} · entry e2 · byte 538 · read: {"action":"peek","id":"${FOLD_C}","offset":5707}`,
      '   …"role":"toolResult","timestamp":1,"toolCallId":"call_3_2","toolName":"read"}',
    ].join('\n');
    expect(readCallId([], hits, 'v3/a.ts')).toBe('call_3_2');
    expect(readCallId([], hits, 'a.ts')).toBeUndefined();
    expect(searchHitShowing(hits, resultMention('call_3_2'))).toEqual({ foldId: FOLD_C, offset: 5707 });
    expect(searchHitShowing(hits, resultMention('call_9_9'))).toBeUndefined();
    expect(
      foldMentioning(
        `${FOLD_A}\nread(path="b.ts")\n${FOLD_B}\nread(path="a.ts")`,
        readMentions('a.ts').slice(0, 1),
        new Set(),
      ),
    ).toBe(FOLD_B);
  });
});
