import type { AgentMessage } from '@mariozechner/pi-agent-core';
import * as piAi from '@mariozechner/pi-ai';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { PiSystemMessages, type SystemMessageReplay } from '../../adapters/pi/system-messages.ts';
import type { ProjectedMessage } from '../../ports/projection-sink.port.ts';

// pi-ai's own replay (0.8x and later): the head Pi builds is exactly this function's output.
const replay = (piAi as { getCurrentSystemMessage?: SystemMessageReplay }).getCurrentSystemMessage;

const system = (sections: Record<string, string>, timestamp: number, tools?: string[]) =>
  ({
    role: 'system',
    content: '',
    sections,
    timestamp,
    ...(tools === undefined ? {} : { toolsAdded: tools.map((name) => ({ name, description: name, parameters: {} })) }),
  }) as unknown as AgentMessage;
const user = (text: string, timestamp: number) =>
  ({ role: 'user', content: [{ type: 'text', text }], timestamp }) as AgentMessage;
const entry = (id: string, message: AgentMessage) =>
  ({ type: 'message', id, parentId: null, timestamp: new Date(0).toISOString(), message }) as unknown as SessionEntry;
const raw = (entryId: string): ProjectedMessage => ({ kind: 'entry', entryId, bytes: '', digest: '' });
const placeholder: ProjectedMessage = {
  kind: 'synthetic',
  origin: 'placeholder',
  text: '[folded]',
} as ProjectedMessage;

describe.skipIf(replay === undefined)('PiSystemMessages.restore (Pi >= 0.8x)', () => {
  const head = system({ preamble: 'You help.' }, 1, ['read']);
  const update = system({ tools: 'read only' }, 5);
  const [u1, u2, u3] = [user('first question', 2), user('second question', 6), user('third question', 7)];
  const branch = [entry('s0', head), entry('e1', u1), entry('s4', update), entry('e2', u2), entry('e3', u3)];

  it("puts the session's system messages back in place of the head Pi rebuilt, the later one after its predecessor", () => {
    const keeper = new PiSystemMessages();
    const returned = [u1, u2, u3];
    keeper.remember(returned, [raw('e1'), raw('e2'), raw('e3')]);
    const rebuilt = replay!([head, update]) as AgentMessage;
    expect(keeper.restore([rebuilt, ...returned], branch, replay!)).toEqual([head, u1, update, u2, u3]);
  });

  it('keeps leading system messages ahead of a placeholder that replaced what came before them', () => {
    const keeper = new PiSystemMessages();
    const returned = [user('[folded]', 2), u2, u3];
    keeper.remember(returned, [placeholder, raw('e2'), raw('e3')]);
    const out = keeper.restore([replay!([head, update]) as AgentMessage, ...returned], branch, replay!);
    expect(out?.map((message) => (message as { role: string }).role)).toEqual([
      'system',
      'system',
      'user',
      'user',
      'user',
    ]);
    expect(out?.[0]).toEqual(head);
  });

  it("leaves the request alone when the session's messages do not replay to Pi's head, or Pi kept its own", () => {
    const keeper = new PiSystemMessages();
    keeper.remember([u1, u2, u3], [raw('e1'), raw('e2'), raw('e3')]);
    // A head with a tool the session never declared (a system message not yet written, say).
    const other = replay!([head, update, system({}, 8, ['write'])]) as AgentMessage;
    expect(keeper.restore([other, u1, u2, u3], branch, replay!)).toBeUndefined();
    // Pi kept its own messages (an unchanged conversation): nothing to do.
    expect(keeper.restore([head, u1, update, u2, u3], branch, replay!)).toBeUndefined();
  });
});
