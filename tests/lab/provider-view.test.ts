import type { Context } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { providerView } from '../../lab/provider/provider-view.ts';

const tool = (name: string) =>
  ({ name, description: `${name} tool`, parameters: { type: 'object', properties: {} } }) as never;

describe('the provider view of a Pi >= 0.74 context (system messages inside the conversation)', () => {
  it('rebuilds one system prompt and one tool list, and keeps only the conversation as messages', () => {
    const context = {
      messages: [
        {
          role: 'system',
          content: 'You are the lab agent.',
          sections: { rules: '<rules>be brief</rules>', scratch: '<scratch/>' },
          toolsAdded: [tool('read'), tool('repo_stage')],
          timestamp: 0,
        },
        { role: 'user', content: 'start', timestamp: 1 },
        {
          role: 'system',
          content: [{ type: 'text', text: 'Later instruction.' }],
          sections: { scratch: null },
          toolsRemoved: [{ name: 'repo_stage' }],
          toolsAdded: [tool('peek')],
          timestamp: 2,
        },
        { role: 'user', content: 'go on', timestamp: 3 },
      ],
    } as unknown as Context;
    const view = providerView(context);
    expect(view.systemPrompt).toBe('You are the lab agent.\n\nLater instruction.\n\n<rules>be brief</rules>');
    expect(view.tools!.map((entry) => entry.name)).toEqual(['read', 'peek']);
    expect(view.messages.map((message) => message.role)).toEqual(['user', 'user']);
  });

  it('a Pi 0.x context (prompt and tools beside the messages) is passed through as it is', () => {
    const context = {
      systemPrompt: 'p',
      tools: [tool('read')],
      messages: [{ role: 'user', content: 'x', timestamp: 0 }],
    } as unknown as Context;
    expect(providerView(context)).toBe(context);
  });
});
