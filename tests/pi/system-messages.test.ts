import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as piAi from '@mariozechner/pi-ai';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
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

  it('a session begun without system messages (a Pi 0.x file) resumes on this Pi with its prompt first', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'pi-fold-no-system-'));
    const first = await openScriptedPi({
      script: reads(12),
      contextWindow: 30_000,
      sessionDirectory: directory,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, landing: 'context-hook' },
    });
    await first.session.prompt('Read blobs.');
    await settle(first.session);
    const file = first.sessionManager.getSessionFile()!;
    first.session.dispose();
    // Drop the system entries, as a file written by a Pi without them has none.
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const dropped = new Map<string, string | null>();
    const kept = [];
    for (const line of lines) {
      if (line.type === 'message' && line.message.role === 'system') {
        dropped.set(line.id, line.parentId);
        continue;
      }
      let parent = line.parentId;
      while (parent !== undefined && dropped.has(parent)) parent = dropped.get(parent);
      kept.push(line.type === 'session' ? line : { ...line, parentId: parent ?? null });
    }
    expect(dropped.size).toBeGreaterThan(0);
    writeFileSync(file, `${kept.map((line) => JSON.stringify(line)).join('\n')}\n`);
    const resumed = await openScriptedPi({
      script: reads(24),
      contextWindow: 30_000,
      sessionFile: file,
      sessionDirectory: directory,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, landing: 'context-hook' },
    });
    await resumed.session.prompt('Read more blobs.');
    await settle(resumed.session);
    // Pi appends its system message after the old history; pi-fold must not move it behind it.
    expect(resumed.errors).toEqual([]);
    expect(resumed.ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    for (const request of resumed.requests) expect(JSON.parse(request.wire[0]!)).toMatchObject({ role: 'system' });
  }, 120_000);
});
