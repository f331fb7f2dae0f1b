import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../lab/provider/simulated-provider.ts';
import { createRecordedModel } from '../../lab/replay/recorded-model.ts';
import { buildReplayPlan, SYNTHETIC_PROMPT } from '../../lab/replay/replay-plan.ts';
import type { RecordedSession } from '../../lab/transcripts/recorded-session.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

function recording(entries: TranscriptEntry[]): RecordedSession {
  const responses = entries.flatMap((entry, entryIndex) =>
    entry.role === 'assistant' ? [{ entryIndex, usage: undefined }] : [],
  );
  return {
    format: 'pi-v3',
    path: 'memory',
    entries,
    responses,
    compactions: 0,
    malformedLines: [],
    linesRead: entries.length,
  };
}

const request = (index: number): ModelRequest => ({
  index,
  purpose: 'agent',
  systemPrompt: '',
  tools: [],
  messages: [],
  promptTokens: 0,
});
const call = (id: string, path: string) => ({ id, name: 'read', arguments: { path } });

describe('the recorded model of a replay', () => {
  const entries = [
    userEntry('u1', 'look at a and b'),
    assistantEntry('a1', 'reading', [call('c1', 'a'), call('c2', 'b')]),
    toolResultEntry('r1', 'c1', 'read', 'contents of a'),
    toolResultEntry('r2', 'c2', 'read', 'contents of b'),
    assistantEntry('a2', 'now c', [call('c3', 'c')]),
    userEntry('u2', 'stop, do something else'),
    assistantEntry('a3', 'ok'),
    assistantEntry('a4', 'retried answer'),
  ];
  const plan = buildReplayPlan(recording(entries));

  it('lays turns out so agent requests equal recorded responses, counting each gap', () => {
    expect(plan.responseCount).toBe(4);
    expect(plan.turns.map((turn) => [turn.prompt, turn.responses.map((response) => response.order)])).toEqual([
      ['look at a and b', [0, 1]],
      ['stop, do something else', [2]],
      [SYNTHETIC_PROMPT, [3]],
    ]);
    // a2's call was interrupted by the user: re-issuing it would make Pi ask for a request the recording never made.
    expect(plan.turns[0]!.responses[1]!.toolCalls).toEqual([]);
    expect(plan.gaps.map((gap) => gap.kind)).toEqual(['interrupted-tool-calls', 'response-without-prompt']);
  });

  it('answers in recorded order, returns recorded tool results, and counts what it cannot answer', async () => {
    const model = createRecordedModel(plan);
    const read = model.tools.find((tool) => tool.name === 'read')!;
    const execute = (id: string) => read.execute(id, {}, undefined, undefined, undefined as never);
    expect(model.policy(request(0))).toEqual({
      text: 'reading',
      toolCalls: [
        { name: 'read', arguments: { path: 'a' } },
        { name: 'read', arguments: { path: 'b' } },
      ],
    });
    // The provider numbers calls its own way: results follow the order of the response's calls.
    expect((await execute('call_0_0')).content).toEqual([{ type: 'text', text: 'contents of a' }]);
    expect((await execute('call_0_1')).content).toEqual([{ type: 'text', text: 'contents of b' }]);
    const unknown = await execute('call_0_2');
    expect(unknown.content[0]).toMatchObject({
      text: expect.stringMatching(/no recorded result for read call call_0_2/),
    });
    expect(model.policy(request(1))).toEqual({ text: 'now c' });
    expect(model.policy(request(2))).toEqual({ text: 'ok' });
    expect(model.policy(request(3))).toEqual({ text: 'retried answer' });
    expect(model.policy(request(4)).text).toMatch(/no response left/);
    expect(
      model.policy({
        ...request(5),
        purpose: 'summary',
        messages: [{ role: 'user', content: 'look at a and b\nmore', timestamp: 0 }],
      }).text,
    ).toContain('\n- look at a and b\n');
    expect(model.served()).toBe(4);
    expect(model.gaps.map((gap) => gap.kind)).toEqual([
      'interrupted-tool-calls',
      'response-without-prompt',
      'unknown-tool-call',
      'extra-request',
    ]);
  });
});
