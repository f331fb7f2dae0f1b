import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentMessage } from '@mariozechner/pi-agent-core';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { PiLanding } from '../../adapters/hosts/pi/landing/pi-landing.ts';
import { canonicalBytes } from '../../adapters/hosts/pi/message-entries.ts';
import { type PiFoldRegistration, registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { FoldError } from '../../core/fold-error.ts';
import {
  blobText,
  KEEP_BLOBS_RAW,
  openScriptedPi,
  PI_VERSION,
  type RecordedRequest,
  type ScriptedPi,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { assertPairing, prefixHolds } from './support/prompt-checks.ts';
import { hasContextEdits } from './support/turn-end-edits.ts';

/**
 * docs/pi.md, "Landing as context edits": on a Pi with context edits every commit is written
 * into the session, so Pi's own projection (what its requests, `/compact`, `/tree` and export
 * are built from) is the engine's window. Real AgentSessions, the scripted offline provider.
 */

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const SUMMARY = 'SUMMARY OF THE FOLDED SESSION';
const edits = hasContextEdits(PI_VERSION);
const skipReason = edits ? '' : ` (skipped: Pi ${PI_VERSION} has no context edits; they arrived in 0.87.0)`;

/** Reads 24 KB blobs until `stop()`; a summarisation request gets SUMMARY. */
function readingScript(stop: () => number, summaries: RecordedRequest[] = []) {
  return (request: RecordedRequest): ScriptedReply => {
    if (request.serialized.some((line) => line.includes('<conversation>'))) {
      summaries.push(request);
      return { kind: 'text', text: SUMMARY };
    }
    return request.index >= stop()
      ? { kind: 'text', text: 'done' }
      : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };
  };
}

/** What the model is shown of a message: its model role and content (a custom message is a user message). */
function modelView(message: { role: string; content?: unknown }): string {
  const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
  return JSON.stringify({ role: message.role === 'custom' ? 'user' : message.role, content });
}

/** Pi's projection of the active branch now, as the model would be shown it. */
function piProjection(pi: ScriptedPi): string[] {
  const manager = pi.sessionManager as unknown as { buildSessionProjection(): { messages: AgentMessage[] } };
  return manager
    .buildSessionProjection()
    .messages.filter((message) => (message.role as string) !== 'system')
    .map((message) => modelView(message as { role: string; content?: unknown }));
}

/** The last request's messages are Pi's projection now, less the reply appended after it. */
function expectProjectionIsLastWindow(pi: ScriptedPi): void {
  const last = pi.requests.at(-1)!;
  const sent = last.messages.map((message) => modelView(message as { role: string; content?: unknown }));
  expect(piProjection(pi).slice(0, sent.length)).toEqual(sent);
}

function entryTypes(pi: ScriptedPi): string[] {
  return pi.sessionManager
    .getBranch()
    .map((entry) => (entry.type === 'custom' ? `custom:${entry.customType}` : entry.type));
}

async function foldingOf(pi: ScriptedPi) {
  return pi.registration.sessions.forSession(pi.sessionManager);
}

describe.skipIf(!edits)(`pi: commits land as Pi's own context edits${skipReason}`, () => {
  it('after a commit, Pi builds every request itself and its projection is the window', async () => {
    const pi = await openScriptedPi({
      script: readingScript(() => 40),
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    const folding = await foldingOf(pi);
    expect(folding.landing.used).toBe('session-edits');
    expect(folding.runtime.view.visibleFolds.length).toBeGreaterThan(0);
    const types = entryTypes(pi);
    expect(types).toContain('context_edit');
    expect(types).toContain('custom:pi-fold.landing');
    // The session file says where each fold stands: the last marker names the folds the window shows.
    const markers = pi.sessionManager
      .getBranch()
      .flatMap((entry) => (entry.type === 'custom' && entry.customType === 'pi-fold.landing' ? [entry.data] : []));
    const shown = (markers.at(-1) as { folds: string[] }).folds;
    expect(shown.length).toBeGreaterThan(0);
    for (const placed of folding.runtime.view.visibleFolds) expect(shown).toContain(placed.record.id);
    const { sentByPi, sentByHook, landings } = folding.landing.counters;
    expect(landings).toBeGreaterThan(0);
    // Only a landing request goes out from the hook; every other one is Pi's own projection.
    expect(sentByHook).toBe(landings);
    expect(sentByPi + sentByHook).toBe(pi.requests.length);
    expectProjectionIsLastWindow(pi);
    // The folded blobs are out of Pi's own view of the session, not only out of the requests.
    const projected = piProjection(pi).join('\n');
    const raw = pi.sessionManager
      .getBranch()
      .reduce((sum, entry) => sum + (entry.type === 'message' ? JSON.stringify(entry.message).length : 0), 0);
    expect(projected.length).toBeLessThan(raw / 2);
    expect(projected).not.toContain(blobText(1, 24_000).slice(0, 2_000));
    for (let index = 1; index < pi.requests.length; index += 1) {
      assertPairing(pi.requests[index]!);
      const row = pi.ledger[index]!;
      expect(row.unattributed).toBe(false);
      if (row.causes.length === 0) expect(prefixHolds(pi.requests[index - 1]!, pi.requests[index]!)).toBe(true);
    }
  }, 120_000);

  it("a person's /compact summarises the folded window, and every fold stays peekable byte for byte", async () => {
    const summaries: RecordedRequest[] = [];
    const pi = await openScriptedPi({
      script: readingScript(() => 40, summaries),
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const folding = await foldingOf(pi);
    const folds = folding.runtime.view.visibleFolds.map((placed) => placed.record);
    expect(folds.length).toBeGreaterThan(0);
    await pi.session.compact();
    expect(summaries).toHaveLength(1);
    const summarised = summaries[0]!.serialized.join('\n');
    // The summariser saw placeholders and stubs, not the folded bytes.
    expect(summarised).not.toContain(blobText(1, 24_000).slice(0, 2_000));
    expect(folds.some((fold) => summarised.includes(fold.id))).toBe(true);
    for (const fold of folds) {
      const answer = await folding.runtime.act({ action: 'peek', id: fold.id });
      const first = pi.sessionManager.getEntry(fold.firstEntryId);
      expect(first?.type).toBe('message');
      // The peek shows the span's exact canonical bytes, as the session file holds them.
      if (first?.type === 'message') expect(answer.text).toContain(canonicalBytes(first.message).slice(0, 2_000));
    }
    expect(pi.errors).toEqual([]);
  }, 120_000);

  it('/tree back past a commit and forward again: each time the next request finds Pi showing the window', async () => {
    let stopAt = 40;
    const pi = await openScriptedPi({
      script: readingScript(() => stopAt),
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const leaf = pi.sessionManager.getLeafId()!;
    const branch = pi.sessionManager.getBranch();
    const firstEdit = branch.findIndex((entry) => (entry.type as string) === 'context_edit');
    expect(firstEdit).toBeGreaterThan(0);
    // Back to the tool result just before the first landing: Pi shows the raw branch there.
    const before = branch
      .slice(0, firstEdit)
      .reverse()
      .find((entry) => entry.type === 'message' && entry.message.role === 'toolResult')!;
    await pi.session.navigateTree(before.id, { summarize: false });
    expect(entryTypes(pi)).not.toContain('context_edit');
    stopAt = pi.requests.length + 2;
    await pi.session.prompt('Read two more.');
    await settle(pi.session);
    expectProjectionIsLastWindow(pi);
    // Forward again to where the run ended: its edits stand again, and the engine agrees.
    await pi.session.navigateTree(leaf, { summarize: false });
    expect(entryTypes(pi)).toContain('context_edit');
    stopAt = pi.requests.length + 1;
    await pi.session.prompt('Carry on.');
    await settle(pi.session);
    expectProjectionIsLastWindow(pi);
    for (const row of pi.ledger) expect(row.unattributed).toBe(false);
    expect(pi.errors).toEqual([]);
  }, 120_000);

  it('a resumed session finds its folds in the session file and lands nothing again', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'pi-fold-edits-resume-'));
    const store = new MemoryFoldStore();
    const first = await openScriptedPi({
      script: readingScript(() => 40),
      sessionDirectory: directory,
      fold: { foldStore: store, settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await first.session.prompt('Read blobs.');
    await settle(first.session);
    const file = first.sessionManager.getSessionFile()!;
    await first.registration.sessions.closeAll();
    const resumed = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'still here' }),
      sessionFile: file,
      sessionDirectory: directory,
      fold: { foldStore: store, settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await resumed.session.prompt('Status?');
    await settle(resumed.session);
    expect(resumed.errors).toEqual([]);
    const folding = await foldingOf(resumed);
    expect(folding.landing.counters).toMatchObject({ landings: 0, sentByPi: 1 });
    expectProjectionIsLastWindow(resumed);
  }, 120_000);

  it('landing "context-hook" keeps the hook path on this Pi: no edit is written', async () => {
    const pi = await openScriptedPi({
      script: readingScript(() => 40),
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: SETTINGS,
        settings: KEEP_BLOBS_RAW,
        landing: 'context-hook',
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const folding = await foldingOf(pi);
    expect(folding.landing.used).toBe('context-hook');
    expect(folding.runtime.view.visibleFolds.length).toBeGreaterThan(0);
    expect(entryTypes(pi)).not.toContain('context_edit');
    expect(pi.errors).toEqual([]);
  }, 120_000);
});

describe('pi: choosing the landing', () => {
  it(`"session-edits" is refused by name on a Pi without context edits, "auto" falls back (Pi ${PI_VERSION})`, () => {
    const manager = SessionManager.inMemory();
    const auto = new PiLanding('auto');
    const chosen = auto.editing(manager);
    expect(auto.used).toBe(edits ? 'session-edits' : 'context-hook');
    expect(chosen === undefined).toBe(!edits);
    const forced = new PiLanding('session-edits');
    if (edits) expect(forced.editing(manager)).toBeDefined();
    else {
      const refusal = (() => {
        try {
          forced.editing(manager);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(FoldError.isInstance(refusal) && refusal.code).toBe('SETTINGS.INVALID');
      expect(String((refusal as Error).message)).toContain('0.87');
    }
  });
});

describe('pi: two pi-fold instances in one session', () => {
  it('only the first folds; the second stands down and says so once', async () => {
    let second: PiFoldRegistration | undefined;
    const pi = await openScriptedPi({
      script: readingScript(() => 40),
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
      otherExtensions: {
        after: [
          (api) => {
            second = registerPiFold(api, {
              foldStore: new MemoryFoldStore(),
              settingsPath: SETTINGS,
              settings: KEEP_BLOBS_RAW,
            });
          },
        ],
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    const first = await foldingOf(pi);
    expect(first.runtime.view.visibleFolds.length).toBeGreaterThan(0);
    expect(await second!.sessions.existing(pi.sessionManager.getSessionId())).toBeUndefined();
    expect(pi.notices.filter((notice) => notice.includes('loaded twice'))).toHaveLength(1);
    for (const row of pi.ledger) expect(row.unattributed).toBe(false);
    await pi.registration.sessions.closeAll();
    await second!.sessions.closeAll();
  }, 120_000);
});
