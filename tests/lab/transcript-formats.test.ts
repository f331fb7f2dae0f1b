import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import { buildReplayPlan } from '../../lab/replay/replay-plan.ts';
import { type DocumentPiece, readJsonDocument } from '../../lab/transcripts/json-document-stream.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { dominantModel, type RecordedSession } from '../../lab/transcripts/recorded-session.ts';

const fixtures = resolve(import.meta.dirname, 'fixtures');

/** Every tool result pairs with a call of an earlier response, under that call's name. */
function expectPairedToolResults(session: RecordedSession): void {
  const calls = new Map<string, string>();
  for (const entry of session.entries) {
    for (const call of entry.toolCalls ?? []) calls.set(call.id, call.name);
    if (entry.role === 'toolResult') expect(calls.get(entry.toolCallId!), entry.toolCallId).toBe(entry.toolName);
  }
}

function copyWith(name: string, edit: (text: string) => string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'transcript-format-')), name);
  writeFileSync(path, edit(readFileSync(join(fixtures, name), 'utf8')));
  return path;
}

describe('Codex CLI rollouts', () => {
  it('current shape: one response per API call, usage from its token_count, calls paired with outputs', async () => {
    const session = await loadTranscript(join(fixtures, 'codex-rollout.jsonl'));
    expect(session.format).toBe('codex');
    expect(session.responses.length).toBe(5);
    expect(session.entries.map((entry) => entry.role)).toEqual([
      'user',
      'user',
      'assistant',
      'toolResult',
      'assistant',
      'toolResult',
      'assistant',
      'user',
      'assistant',
      'toolResult',
      'assistant',
    ]);
    // OpenAI counts cached input inside input_tokens: fresh input is the difference.
    expect(session.responses[1]!.usage).toEqual({ input: 300, cacheRead: 5120, cacheWrite: 0, output: 140 });
    // A count that arrives after the tool output still belongs to the call before it; a repeated count is not a new call.
    expect(session.responses[3]!.usage).toEqual({ input: 168, cacheRead: 5632, cacheWrite: 0, output: 30 });
    expect(session.responses.every((response) => response.usage !== undefined)).toBe(true);
    expect(dominantModel(session.responses)).toBe('gpt-5-codex');
    expect(session.entries[4]!.toolCalls).toEqual([
      { id: 'call_B2', name: 'apply_patch', argumentsJson: expect.stringContaining('*** Begin Patch') },
    ]);
    expect(session.entries[3]!.text).toContain('throw new Error');
    expectPairedToolResults(session);
    expect(session.compactions).toBe(1);
    expect(session.malformedLines).toEqual([{ line: 15, reason: expect.stringMatching(/^invalid JSON/) }]);
    const index = new TranscriptIndex();
    index.ingest(session.entries);
    expect(index.length).toBe(session.entries.length);
  });

  it('legacy shape: bare items after a metadata line, state lines skipped, a broken line reported by number', async () => {
    const session = await loadTranscript(join(fixtures, 'codex-legacy-rollout.jsonl'));
    expect(session.format).toBe('codex-legacy');
    expect(session.responses.length).toBe(2);
    expect(session.responses.map((response) => response.usage)).toEqual([undefined, undefined]);
    expect(session.entries.find((entry) => entry.role === 'toolResult')).toMatchObject({
      toolCallId: 'call_L1',
      toolName: 'shell',
      text: expect.stringContaining('notes.md'),
    });
    expectPairedToolResults(session);
    expect(session.malformedLines.map((skipped) => skipped.line)).toEqual([8]);
  });
});

describe('chat trajectories (mini-swe-agent .traj.json)', () => {
  it('tool-calling trajectory: responses, tool messages paired by tool_call_id, litellm usage, the model', async () => {
    const session = await loadTranscript(join(fixtures, 'mini-swe-agent-toolcall.traj.json'));
    expect(session.format).toBe('chat-trajectory');
    expect(session.responses.length).toBe(3);
    expect(session.entries.filter((entry) => entry.role === 'toolResult').length).toBe(4);
    expect(session.entries[4]!.toolCalls?.map((call) => call.name)).toEqual(['bash', 'bash']);
    expectPairedToolResults(session);
    // prompt_tokens holds cached and cache-written input (Anthropic through litellm).
    expect(session.responses[1]!.usage).toEqual({ input: 0, cacheRead: 2100, cacheWrite: 160, output: 55 });
    expect(dominantModel(session.responses)).toBe('claude-sonnet-4-5-20250929');
    // mini-swe-agent's bookkeeping never reaches the wire bytes; its exit message is no entry.
    expect(session.entries.every((entry) => !entry.bytes.includes('"extra"'))).toBe(true);
    expect(session.entries.at(-1)!.role).toBe('toolResult');
    expect(session.malformedLines).toEqual([]);
  });

  it('text-based trajectory: observations are user messages, so each response is its own turn', async () => {
    const session = await loadTranscript(join(fixtures, 'mini-swe-agent-text.traj.json'));
    expect(session.responses.length).toBe(2);
    expect(session.responses[1]!.usage).toEqual({ input: 64, cacheRead: 896, cacheWrite: 0, output: 25 });
    expect(dominantModel(session.responses)).toBe('gpt-5-mini');
    expect(buildReplayPlan(session).turns.length).toBe(2);
  });

  it('a message that is not valid JSON is reported by its line; the other messages still convert', async () => {
    const path = copyWith('mini-swe-agent-toolcall.traj.json', (text) =>
      text.replace('"role": "tool",', '"role": "tool",,'),
    );
    const brokenLine = readFileSync(path, 'utf8')
      .split('\n')
      .findIndex((line) => line.includes('"role": "tool",,'));
    const session = await loadTranscript(path);
    expect(session.malformedLines.length).toBe(1);
    // The element is reported at the line its object opens, just above the broken field.
    expect(session.malformedLines[0]!.line).toBe(brokenLine);
    expect(session.malformedLines[0]!.reason).toMatch(/^invalid JSON element/);
    expect(session.responses.length).toBe(3);
    expect(session.entries.filter((entry) => entry.role === 'toolResult').length).toBe(3);
  });

  it('a file cut short keeps what was read and says where it ended', async () => {
    const path = copyWith('mini-swe-agent-toolcall.traj.json', (text) =>
      text.slice(0, text.lastIndexOf('toolu_03') + 40),
    );
    const session = await loadTranscript(path);
    expect(session.responses.length).toBe(2);
    expect(session.entries.filter((entry) => entry.role === 'toolResult').length).toBe(2);
    expect(session.malformedLines.at(-1)!.reason).toMatch(
      /file ends inside the document \(the element begun at line \d+ is unterminated\)/,
    );
  });

  it('the document is cut the same way whatever the chunk size (pieces across chunk boundaries)', async () => {
    const pieces = async (chunkBytes: number): Promise<DocumentPiece[]> => {
      const all: DocumentPiece[] = [];
      for await (const piece of readJsonDocument(
        join(fixtures, 'mini-swe-agent-toolcall.traj.json'),
        'messages',
        chunkBytes,
      ))
        all.push(piece);
      return all;
    };
    const whole = await pieces(1 << 20);
    expect(whole.filter((piece) => piece.kind === 'element').length).toBe(10);
    expect(await pieces(7)).toEqual(whole);
  });

  it('a minified trajectory on one line, and a bare array of messages, convert too', async () => {
    const minified = copyWith('mini-swe-agent-toolcall.traj.json', (text) => JSON.stringify(JSON.parse(text)));
    expect((await loadTranscript(minified)).responses.length).toBe(3);
    const bare = copyWith('mini-swe-agent-text.traj.json', (text) =>
      JSON.stringify(JSON.parse(text).messages, null, 1),
    );
    expect((await loadTranscript(bare)).responses.length).toBe(2);
  });
});

describe('the new formats replay through the CLI at their model window', () => {
  it.each([
    // pi-ai's registry gives GPT-5 its whole 400k window, as Pi budgets against it.
    ['codex-rollout.jsonl', 5, 'budget 383616, provider cap 400000, price list openai/gpt-5-codex;', 'none'],
    ['codex-legacy-rollout.jsonl', 2, 'the recording names no model', 'none'],
    // The trajectory ends on the submit call: the recording holds nothing after it to re-issue it for.
    [
      'mini-swe-agent-toolcall.traj.json',
      3,
      'budget 183616, provider cap 200000, price list anthropic/claude-sonnet-4-5-20250929',
      '1 interrupted-tool-calls',
    ],
    ['mini-swe-agent-text.traj.json', 2, 'price list openai/gpt-5-mini', 'none'],
  ])('%s: %i agent requests per arm', { timeout: 60_000 }, async (file, responses, window, gaps) => {
    const out: string[] = [];
    const code = await runCli(['replay', join(fixtures, file), '--arms', 'native,fold', '--json'], {
      out: (line) => out.push(line),
      error: () => {},
    });
    expect(code).toBe(0);
    const summary = JSON.parse(out.join('\n'));
    const notes: string = summary.notes.join('\n');
    expect(notes).toContain(window);
    for (const arm of ['native', 'fold'])
      expect(notes).toContain(
        `${arm}: ${responses} agent requests answered for ${responses} recorded responses; gaps: ${gaps}`,
      );
  });
});
