import type { Context, Message, Tool } from '@mariozechner/pi-ai';

/** A system message as Pi >= 0.74 carries it inside the conversation (not in the 0.73 types the root compiles against). */
interface SystemMessageLike {
  readonly role: 'system';
  readonly content?: string | readonly { readonly type: string; readonly text?: string }[];
  readonly sections?: Readonly<Record<string, string | null>>;
  readonly toolsAdded?: readonly Tool[];
  readonly toolsRemoved?: readonly ({ readonly name: string } | string)[];
}

/**
 * What a provider that takes one system prompt and one tool list receives. Pi 0.x hands
 * them beside the messages; Pi >= 0.74 (a peer's host, `lab/peers`) carries them as
 * `system` messages inside the conversation: the leading one is the prompt, later ones add
 * text, replace named sections and add or remove tools. Replayed in order they give the
 * prompt and tools as such a provider rebuilds them, so the lab bills both hosts alike.
 */
export function providerView(context: Context): Context {
  const all = context.messages as readonly (Message | SystemMessageLike)[];
  if (!all.some((message) => message.role === 'system')) return context;
  const texts: string[] = context.systemPrompt === undefined ? [] : [context.systemPrompt];
  const sections = new Map<string, string>();
  const tools = new Map<string, Tool>((context.tools ?? []).map((tool) => [tool.name, tool]));
  const messages: Message[] = [];
  for (const message of all) {
    if (message.role !== 'system') {
      messages.push(message);
      continue;
    }
    const text =
      typeof message.content === 'string'
        ? message.content
        : (message.content ?? []).map((part) => part.text ?? '').join('');
    if (text.length > 0) texts.push(text);
    for (const [name, body] of Object.entries(message.sections ?? {})) {
      if (body === null) sections.delete(name);
      else sections.set(name, body);
    }
    for (const tool of message.toolsAdded ?? []) tools.set(tool.name, tool);
    for (const removed of message.toolsRemoved ?? [])
      tools.delete(typeof removed === 'string' ? removed : removed.name);
  }
  return { systemPrompt: [...texts, ...sections.values()].join('\n\n'), tools: [...tools.values()], messages };
}
