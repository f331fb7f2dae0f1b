import { expect } from 'vitest';
import type { RecordedRequest } from '../../../testing/pi/scripted-pi.ts';

/** docs/behaviour.md I1 on the provider's own view: request `next` starts with every message of request `previous`, byte for byte. */
export function prefixHolds(previous: RecordedRequest, next: RecordedRequest): boolean {
  if (next.serialized.length < previous.serialized.length) return false;
  return previous.serialized.every((line, position) => next.serialized[position] === line);
}

/** Every call has its result right after its message, and no result answers a call that is not there (docs/behaviour.md I3). */
export function assertPairing(request: RecordedRequest): void {
  const open = new Set<string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') {
      expect([...open], `request ${request.index + 1}: calls without results`).toEqual([]);
      for (const block of message.content) if (block.type === 'toolCall') open.add(block.id);
    } else if (message.role === 'toolResult') {
      expect(open.has(message.toolCallId), `request ${request.index + 1}: orphan result ${message.toolCallId}`).toBe(
        true,
      );
      open.delete(message.toolCallId);
    } else {
      expect([...open], `request ${request.index + 1}: a user message splits calls from results`).toEqual([]);
    }
  }
}
