import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { openScriptedPi, PI_VERSION, settle } from '../../testing/pi/scripted-pi.ts';
import { type AnthropicThreadServer, startAnthropicThreadServer } from './support/anthropic-thread-server.ts';

/**
 * Pi 1.5.1 added Anthropic message threads: a request sends only the messages since the last
 * reply and the server continues from that reply; any change to earlier context makes pi-ai send
 * the whole conversation again (a new thread). pi-fold rewrites earlier context only when it
 * commits, so between commits every request must continue the thread, and the ownership check,
 * which reads the body at `before_provider_request`, must not take a continuation for a rewrite.
 * (1.5.1 itself is not on npm; the compatibility job runs this on 1.6.0, and by hand on 1.5.2.)
 */
const [major, minor, patch] = PI_VERSION.split('.').map(Number) as [number, number, number];
const HAS_MESSAGE_THREADS = major > 1 || (major === 1 && (minor > 5 || (minor === 5 && patch >= 1)));

const READS = 18;
let server: AnthropicThreadServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.skipIf(!HAS_MESSAGE_THREADS)(`pi ${PI_VERSION}: Anthropic message threads under pi-fold`, () => {
  it('continues the thread between commits, starts one new thread per commit, and raises no ownership alarm', async () => {
    const endpoint = (server = await startAnthropicThreadServer((_conversation, index) =>
      index >= READS ? { text: 'All read.' } : { call: { seed: index, size: 6_000 } },
    ));
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'unused' }),
      contextWindow: 30_000,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: '/nonexistent/pi-fold/settings.json' },
      providers: [
        {
          name: 'anthropic-local',
          config: {
            baseUrl: endpoint.baseUrl,
            apiKey: 'offline',
            api: 'anthropic-messages',
            models: [
              {
                id: 'claude-local',
                name: 'Claude (local)',
                reasoning: false,
                input: ['text'],
                cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                contextWindow: 30_000,
                maxTokens: 4_096,
                compat: { supportsMessageThreads: true },
              },
            ],
          } as never,
        },
      ],
      startModel: { provider: 'anthropic-local', id: 'claude-local' },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    const requests = endpoint.requests;
    expect(requests.length).toBe(READS + 1);

    // The conversation the model saw is whole every time: the thread held what was not re-sent.
    const ledger = pi.ledger;
    expect(ledger.length).toBe(requests.length);
    const commits = ledger.flatMap((row, index) => (row.foldsLanded > 0 ? [index] : []));
    expect(commits.length).toBeGreaterThan(0);
    requests.forEach((request, index) => {
      const label = `request ${index + 1} (${request.thread}, ${request.sentMessages} sent)`;
      if (index === 0 || commits.includes(index)) {
        // The first request and each commit's request start a thread with the whole window.
        expect(request.thread, label).toBe('create');
        expect(request.sentMessages, label).toBe(request.conversation.length);
      } else {
        // Between commits pi-fold only appends: the thread continues with the new messages alone.
        expect(request.thread, label).toBe('continue');
        expect(request.sentMessages, label).toBeLessThan(request.conversation.length);
      }
    });
    const registered = await pi.registration.sessions.forSession(pi.sessionManager);
    expect(registered.ownership.warnings).toEqual([]);
    expect(pi.notices.filter((notice) => /another extension|Pi compacted/.test(notice))).toEqual([]);
  }, 120_000);
});
