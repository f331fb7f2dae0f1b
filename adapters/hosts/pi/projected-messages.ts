import type { AgentMessage } from '@mariozechner/pi-agent-core';
import { FoldError } from '../../../core/fold-error.ts';
import type { ProjectedMessage } from '../../../ports/projection-sink.port.ts';

/**
 * Turns the engine's host-neutral projection into the messages Pi's `context` hook returns:
 * an entry is the event's own message object (untouched, so its bytes are exactly what the
 * session holds), a placeholder/notice/receipt is a user message, a stub is a tool result
 * for the same call whose text is the stub (pairing survives), and a spilled entry is the
 * event's message with its oversized parts in their window form (B6.2, `docs/behaviour.md`).
 *
 * Written messages take the timestamp of the message before them, so the same projection
 * always serialises to the same bytes (docs/behaviour.md I5), also after a restart.
 */
export function toPiMessages(
  projected: readonly ProjectedMessage[],
  originals: ReadonlyMap<string, AgentMessage>,
): AgentMessage[] {
  const out: AgentMessage[] = [];
  let timestamp = 0;
  for (const message of projected) {
    if (message.kind === 'synthetic') {
      out.push({ role: 'user', content: [{ type: 'text', text: message.text }], timestamp });
      continue;
    }
    const original = originals.get(message.entryId);
    if (original === undefined) {
      throw new FoldError(
        'INVARIANT.BROKEN',
        `pi: the projection names entry ${message.entryId}, which is not among this request's messages`,
        { details: { entryId: message.entryId } },
      );
    }
    timestamp = original.timestamp;
    if (message.kind === 'entry') {
      out.push(original);
      continue;
    }
    if (message.kind === 'spilled') {
      out.push(spilledPiMessage(original, message));
      continue;
    }
    out.push({
      role: 'toolResult',
      toolCallId: message.toolCallId,
      toolName: message.toolName,
      content: [{ type: 'text', text: message.text }],
      isError: false,
      timestamp,
    });
  }
  return out;
}

/**
 * The event's message with its spilled parts shown in their window form: a result's text
 * blocks become the one window text (images and other blocks stay, in order after it); a
 * call's spilled arguments are replaced. Everything else is the message as Pi has it.
 */
function spilledPiMessage(
  original: AgentMessage,
  message: Extract<ProjectedMessage, { kind: 'spilled' }>,
): AgentMessage {
  if (original.role === 'toolResult' && message.resultText !== undefined) {
    const others = original.content.filter((block) => block.type !== 'text');
    return { ...original, content: [{ type: 'text', text: message.resultText }, ...others] };
  }
  if (original.role === 'assistant' && message.toolCallArguments !== undefined) {
    const replaced = new Map(message.toolCallArguments.map((call) => [call.toolCallId, call.argumentsJson]));
    const content = original.content.map((block) => {
      const argumentsJson = block.type === 'toolCall' ? replaced.get(block.id) : undefined;
      return argumentsJson === undefined
        ? block
        : { ...block, arguments: JSON.parse(argumentsJson) as Record<string, unknown> };
    });
    return { ...original, content };
  }
  throw new FoldError(
    'INVARIANT.BROKEN',
    `pi: the projection spills entry ${message.entryId}, a ${original.role} message that has no such part`,
    { details: { entryId: message.entryId } },
  );
}
