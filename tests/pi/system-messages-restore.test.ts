import type { AgentMessage } from '@mariozechner/pi-agent-core';
import * as piAi from '@mariozechner/pi-ai';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { BranchSystemIndex, contextSystemMessages } from '../../adapters/hosts/pi/branch-system-messages.ts';
import { PiSystemMessages, type SystemMessageReplay } from '../../adapters/hosts/pi/system-messages.ts';
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
/** A real in-memory Pi session holding `messages` in order, and the id of each. */
function sessionOf(...messages: AgentMessage[]): { session: SessionManager; ids: string[] } {
  const session = SessionManager.inMemory();
  const ids = messages.map((message) =>
    session.appendMessage(message as Parameters<SessionManager['appendMessage']>[0]),
  );
  return { session, ids };
}
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
  const { session: branch, ids } = sessionOf(head, u1, update, u2, u3);
  const [, e1, , e2, e3] = ids as [string, string, string, string, string];

  it("puts the session's system messages back in place of the head Pi rebuilt, the later one after its predecessor", () => {
    const keeper = new PiSystemMessages();
    const returned = [u1, u2, u3];
    keeper.remember(returned, [raw(e1), raw(e2), raw(e3)]);
    const rebuilt = replay!([head, update]) as AgentMessage;
    expect(keeper.restore([rebuilt, ...returned], branch, replay!)).toEqual([head, u1, update, u2, u3]);
  });

  it('keeps leading system messages ahead of a placeholder that replaced what came before them', () => {
    const keeper = new PiSystemMessages();
    const returned = [user('[folded]', 2), u2, u3];
    keeper.remember(returned, [placeholder, raw(e2), raw(e3)]);
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
    keeper.remember([u1, u2, u3], [raw(e1), raw(e2), raw(e3)]);
    // A head with a tool the session never declared (a system message not yet written, say).
    const other = replay!([head, update, system({}, 8, ['write'])]) as AgentMessage;
    expect(keeper.restore([other, u1, u2, u3], branch, replay!)).toBeUndefined();
    // Pi kept its own messages (an unchanged conversation): nothing to do.
    expect(keeper.restore([head, u1, update, u2, u3], branch, replay!)).toBeUndefined();
  });

  it('reads a growing branch at the cost of what was added, and equals a full read after any move', () => {
    const { session, ids } = sessionOf(head, u1, update, u2);
    const index = new BranchSystemIndex();
    const full = () => contextSystemMessages(session.getBranch());
    const same = () => {
      const read = index.read(session);
      const expected = full();
      expect(read.placed).toEqual(expected.placed);
      expect([...read.positionById]).toEqual([...expected.positionById]);
      return read;
    };
    same();
    // Growth: a later system message is placed after what preceded it.
    const later = system({ tools: 'read and write' }, 8, ['write']);
    session.appendMessage(u3 as Parameters<SessionManager['appendMessage']>[0]);
    session.appendMessage(later as Parameters<SessionManager['appendMessage']>[0]);
    expect(same().placed.map(({ message }) => message)).toEqual([head, update, later]);
    // A jump back (as /tree does) drops what the abandoned branch added.
    session.branch(ids[1]!);
    session.appendMessage(user('another path', 9) as Parameters<SessionManager['appendMessage']>[0]);
    expect(same().placed.map(({ message }) => message)).toEqual([head]);
    // A compaction restarts the context from its own entry.
    session.appendCompaction('summary', ids[1]!, 100);
    session.appendMessage(u2 as Parameters<SessionManager['appendMessage']>[0]);
    same();
  });
});
