import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import {
  openScriptedPi,
  type RecordedRequest,
  type ScriptedPi,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import dropOldResults from '../lab/support/drop-old-results-extension.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const READS = 14;

/** Fourteen reads of 6 KB, then an answer: more tool results than the rival keeps (8). */
const readThenAnswer = (request: RecordedRequest): ScriptedReply =>
  request.index >= READS
    ? { kind: 'text', text: 'All read.' }
    : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 6_000 } }] };

const ownershipNotices = (pi: ScriptedPi) =>
  pi.notices.filter((notice) => notice.startsWith('pi-fold: ') && /another extension|Pi compacted/.test(notice));

async function statusText(pi: ScriptedPi): Promise<string> {
  const before = pi.notices.length;
  await pi.session.prompt('/fold-status');
  return pi.notices.slice(before).join('\n');
}

async function warningsOf(pi: ScriptedPi) {
  return (await pi.registration.sessions.forSession(pi.sessionManager)).ownership.warnings;
}

describe('pi: single ownership of the window', () => {
  it('notices once when another extension rewrites the context after pi-fold, and /fold-status keeps saying so', async () => {
    const pi = await openScriptedPi({
      script: readThenAnswer,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS },
      otherExtensions: { after: [dropOldResults] },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    // The rival really did rewrite what was sent (the provider saw its marker).
    expect(
      pi.requests.some((request) =>
        request.serialized.some((line) => line.includes('[result dropped by the example extension]')),
      ),
    ).toBe(true);
    const notices = ownershipNotices(pi);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('another extension changed the context after pi-fold');
    const [warning] = await warningsOf(pi);
    expect(warning?.problem).toBe('rewritten-after-pi-fold');
    // Counted on every request that dropped something, told only once.
    expect(warning!.occurrences).toBe(
      pi.requests.filter((request) =>
        request.serialized.some((line) => line.includes('[result dropped by the example extension]')),
      ).length,
    );
    expect(warning!.occurrences).toBeGreaterThan(1);
    const status = await statusText(pi);
    expect(status).toContain('Ownership: pi-fold does not own this window alone');
    expect(status).toContain(`rewritten-after-pi-fold (${warning!.occurrences}×`);
  }, 120_000);

  it('notices an extension after pi-fold that keeps only the first 200 chars of each tool result', async () => {
    const truncateResults = (pi: ExtensionAPI): void => {
      pi.on('context', (event) => ({
        messages: event.messages.map((message) =>
          message.role !== 'toolResult'
            ? message
            : {
                ...message,
                content: message.content.map((block) =>
                  block.type === 'text' ? { ...block, text: block.text.slice(0, 200) } : block,
                ),
              },
        ),
      }));
    };
    const pi = await openScriptedPi({
      script: readThenAnswer,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS },
      otherExtensions: { after: [truncateResults] },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    // The provider really got the cut texts (each result is 6,000 chars).
    expect(
      pi.requests
        .at(-1)!
        .messages.filter((message) => message.role === 'toolResult')
        .every((message) => JSON.stringify(message).length < 1_000),
    ).toBe(true);
    const notices = ownershipNotices(pi);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('another extension changed the context after pi-fold');
    const [warning] = await warningsOf(pi);
    expect(warning?.problem).toBe('rewritten-after-pi-fold');
    expect(warning!.occurrences).toBe(READS);
  }, 120_000);

  it('says so once when an extension before pi-fold keeps changing history, and the window stays consistent', async () => {
    const pi = await openScriptedPi({
      script: readThenAnswer,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS },
      otherExtensions: { before: [dropOldResults] },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    // pi-fold projected every request from what the rival handed it (no hook error, nothing refused).
    expect(pi.errors).toEqual([]);
    expect(pi.ledger.length).toBe(READS + 1);
    const notices = ownershipNotices(pi);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('another extension running before pi-fold changed 1 earlier message');
    const warnings = await warningsOf(pi);
    expect(warnings.map((warning) => warning.problem)).toEqual(['rewritten-before-pi-fold']);
    // From the ninth result on, every request blanks one more old result.
    expect(warnings[0]!.occurrences).toBe(READS - 8);
    for (const row of pi.ledger) expect(row.unattributed).toBe(false);
  }, 120_000);

  it('stays silent when pi-fold is the only context manager', async () => {
    const pi = await openScriptedPi({
      script: readThenAnswer,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    expect(pi.requests.length).toBe(READS + 1);
    expect(ownershipNotices(pi)).toEqual([]);
    expect(await warningsOf(pi)).toEqual([]);
    expect(await statusText(pi)).not.toContain('Ownership:');
  }, 120_000);

  it("notices a compaction Pi runs without asking pi-fold (the guard's hook withheld)", async () => {
    // Past six reads the script answers with 190k reported tokens: Pi's threshold check at
    // agent_end compacts, and its summary call gets the same 'done' text as a summary.
    const script = (request: RecordedRequest): ScriptedReply =>
      request.index >= 6
        ? { kind: 'text', text: 'done', reportTokens: 190_000 }
        : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };
    // A Pi that never hands session_before_compact to pi-fold, as some versions do on overflow.
    const withoutGuard = (pi: ExtensionAPI): ExtensionAPI =>
      new Proxy(pi, {
        get(target, property, receiver) {
          if (property !== 'on') return Reflect.get(target, property, receiver);
          return (event: string, handler: never) =>
            event === 'session_before_compact' ? undefined : target.on(event as never, handler);
        },
      });
    const pi = await openScriptedPi({
      script,
      // On the edit path Pi's own threshold check sees the folded (and spilled) projection and
      // never compacts here; the context-hook path is the one where a Pi can compact behind pi-fold.
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, landing: 'context-hook' },
      wrapExtensionApi: withoutGuard,
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    expect(pi.sessionManager.getEntries().filter((entry) => entry.type === 'compaction')).toHaveLength(1);
    expect(pi.errors).toEqual([]);
    const notices = ownershipNotices(pi);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('Pi compacted the session');
    expect((await warningsOf(pi)).map((warning) => warning.problem)).toEqual(['compacted-by-pi']);
    expect(await statusText(pi)).toContain('compacted-by-pi (1×');
  }, 120_000);
});
