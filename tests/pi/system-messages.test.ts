import * as piAi from '@mariozechner/pi-ai';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import { openScriptedPi, type RecordedRequest, type ScriptedReply, settle } from '../../testing/pi/scripted-pi.ts';
import { prefixHolds } from './support/prompt-checks.ts';

/**
 * Pi from 0.8x on keeps its system prompt (as named `sections`) and the tool set
 * (`toolsAdded`/`toolsRemoved`) as `system` messages in the transcript, hidden from `context`
 * handlers. A handler that hands back a changed conversation gets them replaced by one head Pi
 * rebuilds, with its keys in another order: the first message's bytes change and the provider
 * reads the whole window again. pi-fold puts Pi's own messages back (docs/behaviour.md I1).
 */
const { getCurrentSystemMessage } = piAi as { getCurrentSystemMessage?: (messages: readonly unknown[]) => unknown };
const HOST_HAS_SYSTEM_MESSAGES = typeof getCurrentSystemMessage === 'function';

const SETTINGS = '/nonexistent/pi-fold/settings.json';

/** Reads of 6 KB until the scripted model is told to stop; a 30k window makes pi-fold commit. */
const reads =
  (until: number) =>
  (request: RecordedRequest): ScriptedReply =>
    request.index >= until
      ? { kind: 'text', text: 'Read enough.' }
      : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 6_000 } }] };

const systemLines = (request: RecordedRequest) =>
  request.wire.filter((line) => (JSON.parse(line) as { role: string }).role === 'system');

/** The wire bytes of request `next` start with those of `previous`, Pi's system messages included. */
const wirePrefixHolds = (previous: RecordedRequest, next: RecordedRequest) =>
  previous.wire.every((line, position) => next.wire[position] === line);

describe.skipIf(!HOST_HAS_SYSTEM_MESSAGES)("pi: Pi's own system messages reach the provider as Pi wrote them", () => {
  it('keeps the leading system message byte for byte when pi-fold changes the window, and every append a prefix on the wire', async () => {
    let script = reads(4);
    let api: ExtensionAPI | undefined;
    const pi = await openScriptedPi({
      script: (request) => script(request),
      contextWindow: 30_000,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS },
      otherExtensions: { before: [(extension) => void (api = extension)] },
    });
    await pi.session.prompt('Read four blobs.');
    await settle(pi.session);
    // A changed tool set: Pi declares it in a second system message before the next prompt.
    api!.setActiveTools(api!.getActiveTools().filter((name) => name !== 'bash'));
    script = reads(16);
    await pi.session.prompt('Read more blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);

    // pi-fold did change the window (placeholders, notices): Pi's collapse would have fired.
    expect(pi.ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    const first = pi.requests[0]!.wire[0]!;
    expect(JSON.parse(first)).toMatchObject({ role: 'system' });
    for (const request of pi.requests)
      expect(request.wire[0], `request ${request.index + 1}: the leading system message`).toBe(first);

    // Wherever pi-fold kept the conversation a prefix, the bytes on the wire are one too.
    let pureAppends = 0;
    for (let index = 1; index < pi.requests.length; index += 1) {
      const [previous, next] = [pi.requests[index - 1]!, pi.requests[index]!];
      if (!prefixHolds(previous, next)) continue;
      pureAppends += 1;
      expect(
        wirePrefixHolds(previous, next),
        `request ${index + 1}: an append in the conversation, a rewrite on the wire`,
      ).toBe(true);
    }
    expect(pureAppends).toBeGreaterThan(10);

    // Both of Pi's system messages went out, in place, and they replay to the state Pi holds.
    const last = pi.requests.at(-1)!;
    const branchSystem = pi.sessionManager
      .getBranch()
      .flatMap((entry) =>
        entry.type === 'message' && (entry.message.role as string) === 'system' ? [entry.message] : [],
      );
    expect(branchSystem.length).toBe(2);
    expect(systemLines(last)).toEqual(branchSystem.map((message) => JSON.stringify(message)));
    expect(JSON.stringify(getCurrentSystemMessage!(last.wire.map((line) => JSON.parse(line))))).toBe(
      JSON.stringify(getCurrentSystemMessage!(branchSystem)),
    );
  }, 120_000);
});
