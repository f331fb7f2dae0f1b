import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { countToolMix, poolToolMix, referenceTokens, type ToolMixCounts } from '../../lab/workload/tool-mix.ts';
import type { TranscriptEntry } from '../../ports/transcript-entry.ts';

let next = 0;
const entry = (role: TranscriptEntry['role'], text: string, extra: Partial<TranscriptEntry> = {}): TranscriptEntry => ({
  id: `e${(next += 1)}`,
  role,
  bytes: JSON.stringify({ role, text }),
  text,
  ...extra,
});
const call = (id: string, name: string, args: Record<string, unknown>) =>
  entry('assistant', '', { toolCalls: [{ id, name, argumentsJson: JSON.stringify(args) }] });
const result = (id: string, name: string, text: string) =>
  entry('toolResult', text, { toolCallId: id, toolName: name });

describe('counting the tool mix of a transcript', () => {
  const entries = [
    entry('user', 'Fix the parser; the spec is in docs/spec-2024.md.'),
    call('c1', 'bash', { command: 'npm test' }),
    result('c1', 'bash', 'FAIL tests/parse.test.ts > case 7\n  at src/parse.ts:148:21\nrun id 90417'),
    call('c2', 'read', { path: 'src/parse.ts' }),
    result('c2', 'read', 'export const limit = 4096;\nimport { tokenize } from "./lexer2.ts";'),
    call('c3', 'read', { path: 'src/lexer2.ts' }),
    result('c3', 'read', 'export function lexer2(){}  // see docs/spec-2024.md'),
    call('c4', 'edit', { path: 'src/parse.ts', oldText: 'limit = 4096', newText: 'limit = 8192' }),
    result('c4', 'edit', 'Successfully replaced text in src/parse.ts.'),
    call('c5', 'Grep', { pattern: 'deadbeef12' }),
    result('c5', 'Grep', 'src/ids.ts:3: const tag = "deadbeef12cafe";'),
    entry(
      'assistant',
      'Run 90417 failed at src/parse.ts:148:21; case 7 of tests/parse.test.ts; the spec docs/spec-2024.md and tag deadbeef12cafe agree.',
    ),
  ];

  it('sorts calls into shell, edit, reads changed later or not, and other', () => {
    const counts = countToolMix(entries);
    expect(counts.calls).toEqual({ shell: 1, edit: 1, 'read-changed': 1, 'read-unchanged': 1, other: 1 });
  });

  it("counts the model's references back to tool output by the kind that brought it, and not what the person wrote", () => {
    const counts = countToolMix(entries);
    // 90417, src/parse.ts:148:21 and tests/parse.test.ts came from the test run; deadbeef12cafe from the search.
    // docs/spec-2024.md is the person's own words, even though a read showed it again.
    expect(counts.references).toEqual({ shell: 3, edit: 0, 'read-changed': 0, 'read-unchanged': 0, other: 1 });
  });

  it('leaves plain words, member accesses, short numbers and one-segment paths out of the tokens', () => {
    const tokens = referenceTokens(
      'the agent set this.agent to 42 and 2024 at src/a.ts, run 90417 with abc1234def and /home',
    );
    expect([...tokens].sort()).toEqual(['90417', 'abc1234def', 'src/a.ts']);
  });
});

describe('the committed measurements', () => {
  it('lab/workload/tool-mix.json is what the counting script finds in tests/fixtures/transcripts', async () => {
    const committed = JSON.parse(readFileSync('lab/workload/tool-mix.json', 'utf8')) as {
      transcripts: Record<string, ToolMixCounts>;
      pooled: ToolMixCounts;
    };
    const measured: ToolMixCounts[] = [];
    for (const [path, counts] of Object.entries(committed.transcripts)) {
      const again = countToolMix((await loadTranscript(path)).entries);
      expect(again, path).toEqual(counts);
      measured.push(again);
    }
    expect(Object.keys(committed.transcripts)).toHaveLength(4);
    expect(poolToolMix(measured)).toEqual(committed.pooled);
  }, 60_000);
});
