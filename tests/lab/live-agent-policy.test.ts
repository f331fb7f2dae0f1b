import { describe, expect, it } from 'vitest';
import type { Message } from '@mariozechner/pi-ai';
import { summarizeForCompaction } from '../../lab/workload/lab-summarizer.ts';
import { foldNaming } from '../../lab/workload/staged-agent.ts';
import { PAYLOAD } from '../../lab/workload/stage-tools.ts';

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
    const window = [`[folded consolidation ${FOLD_C} · 40 entries]`, 'covers 2 folds', `${FOLD_A} (tool): repo_stage(stage=3) result (9000 chars) starts: Stage 3 of 64`, `${FOLD_B} (tool): repo_stage(stage=4) result`].join('\n');
    expect(foldNaming(window, 4, new Set())).toBe(FOLD_B);
    expect(foldNaming(window, 4, new Set([FOLD_B]))).toBeUndefined();
  });
});

describe('native baseline: the stated summarizer', () => {
  it('keeps first lines and agent notes, drops what sits deeper in a tool result, and stays capped', () => {
    const stage = ['Stage 7 of 64 · zod@4.6.7/src · 5 files', 'Files in this slice:', PAYLOAD.marker(7, 'amber-0042')].join('\n');
    const conversation = ['[User]: do the assignment', '[Assistant]: Stage 6 notes: a.ts: 10 lines, export const a', '[Assistant tool calls]: repo_stage(stage=7)', `[Tool result]: ${stage}`].join('\n');
    const prompt: Message = { role: 'user', content: [{ type: 'text', text: `<conversation>\n${conversation}\n</conversation>\n\nSummarize.` }], timestamp: 0 };
    const summary = summarizeForCompaction([prompt]);
    expect(summary).toContain('Stage 6 notes: a.ts: 10 lines');
    expect(summary).toContain('Stage 7 of 64');
    expect(summary).not.toContain('amber-0042');
    const long: Message = { role: 'user', content: `<conversation>\n${Array.from({ length: 500 }, (_, index) => `[Assistant]: note ${index} ${'x'.repeat(100)}`).join('\n')}\n</conversation>`, timestamp: 0 };
    const capped = summarizeForCompaction([long]);
    expect(capped.length).toBeLessThan(8200);
    expect(capped).toContain('note 499');
    expect(capped).not.toContain('note 0 ');
  });
});
