import type { AgentMessage } from '@mariozechner/pi-agent-core';
import { FoldError } from '../../core/fold-error.ts';
import type { ProjectedMessage } from '../../ports/projection-sink.port.ts';

/**
 * Turns the engine's host-neutral projection into the messages Pi's `context` hook returns:
 * an entry is the event's own message object (untouched, so its bytes are exactly what the
 * session holds), a placeholder/notice/receipt is a user message, and a stub is a tool
 * result for the same call whose text is the stub (pairing survives).
 *
 * Written messages take the timestamp of the message before them, so the same projection
 * always serialises to the same bytes (I5), also after a restart.
 */
export function toPiMessages(projected: readonly ProjectedMessage[], originals: ReadonlyMap<string, AgentMessage>): AgentMessage[] {
  const out: AgentMessage[] = [];
  let timestamp = 0;
  for (const message of projected) {
    if (message.kind === 'synthetic') {
      out.push({ role: 'user', content: [{ type: 'text', text: message.text }], timestamp });
      continue;
    }
    const original = originals.get(message.entryId);
    if (original === undefined) {
      throw new FoldError('INVARIANT.BROKEN', `pi: the projection names entry ${message.entryId}, which is not among this request's messages`, { details: { entryId: message.entryId } });
    }
    timestamp = original.timestamp;
    if (message.kind === 'entry') {
      out.push(original);
      continue;
    }
    out.push({ role: 'toolResult', toolCallId: message.toolCallId, toolName: message.toolName, content: [{ type: 'text', text: message.text }], isError: false, timestamp });
  }
  return out;
}
