import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { PiEntryMapper } from '../../adapters/hosts/pi/message-entries.ts';

/** A message entry of a Pi session tree, as the session file holds it. */
function entry(id: string, parentId: string | null, message: AgentMessage): SessionEntry {
  return {
    type: 'message',
    id,
    parentId,
    timestamp: new Date(message.timestamp).toISOString(),
    message,
  } as SessionEntry;
}
const user = (text: string, timestamp: number) => ({ role: 'user', content: text, timestamp }) as AgentMessage;

describe('PiEntryMapper across requests', () => {
  it('maps a growing branch, a branch switch and a return exactly as a fresh mapper would', () => {
    const reused = new PiEntryMapper();
    // Two messages share a timestamp (same key): the nth message takes the nth entry of that key.
    const trunk = [
      entry('e1', null, user('start', 1)),
      entry('e2', 'e1', user('same time a', 2)),
      entry('e3', 'e2', user('same time b', 2)),
    ];
    const left = [...trunk, entry('l1', 'e3', user('left branch', 3))];
    const right = [...trunk, entry('r1', 'e3', user('right branch', 4)), entry('r2', 'r1', user('right again', 5))];
    const steps: SessionEntry[][] = [trunk, left, [...left, entry('l2', 'l1', user('left grows', 6))], right, left];
    for (const branch of steps) {
      const messages = branch.map((item) => (item as { message: AgentMessage }).message);
      const expected = new PiEntryMapper().map(messages, branch);
      const actual = reused.map(messages, branch);
      expect(actual.entries.map((mapped) => mapped.id)).toEqual(expected.entries.map((mapped) => mapped.id));
      expect(actual.entries.map((mapped) => mapped.id)).toEqual(branch.map((item) => item.id));
      expect(actual.unmatched).toBe(0);
    }
  });
});

describe("PiEntryMapper's content count", () => {
  it('counts a message whose text block is not a string as its bytes, so the engine takes it', async () => {
    const { TranscriptIndex } = await import('../../core/transcript/transcript-index.ts');
    // Another extension's message, of a shape Pi's types do not foresee.
    const odd = {
      role: 'custom',
      customType: 'other-extension',
      content: [{ type: 'text', text: 42 }],
      display: true,
      timestamp: 2,
    } as unknown as AgentMessage;
    const branch = [entry('e1', null, user('start', 1)), entry('e2', 'e1', odd)];
    const mapped = new PiEntryMapper().map(
      branch.map((item) => (item as { message: AgentMessage }).message),
      branch,
    );
    const [plain, counted] = mapped.entries;
    expect(plain!.contentChars).toBe('start'.length);
    expect(counted!.contentChars).toBe(counted!.bytes.length);
    const index = new TranscriptIndex();
    index.ingest(mapped.entries);
    expect(index.length).toBe(2);
  });
});
