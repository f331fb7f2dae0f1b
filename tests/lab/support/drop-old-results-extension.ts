import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/** Tool results kept verbatim, newest first; older ones are replaced. */
const KEEP_RESULTS = 8;

/**
 * A deliberately naive peer runtime for the lab's `extension:<path>` arm: before every
 * request it blanks all but the newest tool results. It rewrites the prompt without telling
 * anyone, so the lab must see those rewrites as unattributed.
 */
export default function dropOldResults(pi: ExtensionAPI): void {
  pi.on('context', (event) => {
    let seen = 0;
    const messages = [...event.messages].reverse().map((message) => {
      if (message.role !== 'toolResult') return message;
      seen += 1;
      return seen <= KEEP_RESULTS
        ? message
        : { ...message, content: [{ type: 'text' as const, text: '[result dropped by the example extension]' }] };
    });
    return { messages: messages.reverse() };
  });
}
