import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResultMessage } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FOLD_LIST_MARK } from '../../adapters/hosts/pi/compaction-fold-list.ts';
import type { PiSessionFolding } from '../../adapters/hosts/pi/session-registry.ts';
import { stableStringify } from '../../core/util/hashing.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  PI_VERSION,
  type RecordedRequest,
  type ScriptedPi,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { assertPairing } from './support/prompt-checks.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const PI_SUMMARY = 'Summary: blobs were read, nothing else happened.';
const FOLD_ID = /fold_[0-9a-f]{24}(?:[0-9a-z_-]*)?/g;

type Phase = 'reading' | 'compacting' | 'peeking';

/** A session that read blobs until several folds committed, with the store it committed them to. */
interface FoldedSession {
  readonly pi: ScriptedPi;
  readonly store: MemoryFoldStore;
  readonly folding: PiSessionFolding;
  readonly setPhase: (phase: Phase) => void;
}

async function foldedSession(options: {
  summariserFailsOnce?: boolean;
  peeks?: (request: RecordedRequest) => ScriptedReply;
  sessionDirectory?: string;
}): Promise<FoldedSession> {
  const store = new MemoryFoldStore();
  let phase: Phase = 'reading';
  let folding: PiSessionFolding | undefined;
  let summaries = 0;
  const script = (request: RecordedRequest): ScriptedReply => {
    if (phase === 'compacting') {
      summaries += 1;
      if (options.summariserFailsOnce === true && summaries === 1) return { kind: 'overflow' };
      return { kind: 'text', text: PI_SUMMARY };
    }
    if (phase === 'peeking') return options.peeks?.(request) ?? { kind: 'text', text: 'done' };
    const committed = folding?.runtime.view.lattice.size ?? 0;
    if (committed >= 4 || request.index > 120) return { kind: 'text', text: 'read enough' };
    return {
      kind: 'tools',
      calls: [
        { name: 'fetch_blob', arguments: { seed: request.index, size: 6_000 + ((request.index * 3_571) % 6_000) } },
      ],
    };
  };
  const pi = await openScriptedPi({
    script,
    fold: { foldStore: store, settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    ...(options.sessionDirectory === undefined ? {} : { sessionDirectory: options.sessionDirectory }),
  });
  folding = await pi.registration.sessions.forSession(pi.sessionManager);
  await pi.session.prompt('Read blobs.');
  await settle(pi.session);
  return { pi, store, folding, setPhase: (next) => (phase = next) };
}

/** The tool results of `pi_fold_context` in the session, by the fold id each peeked. */
function peekResults(pi: ScriptedPi): Map<string, string> {
  const calls = new Map<string, string>();
  const results = new Map<string, string>();
  for (const entry of pi.sessionManager.getBranch()) {
    if (entry.type !== 'message') continue;
    const message = entry.message;
    if (message.role === 'assistant')
      for (const block of message.content)
        if (block.type === 'toolCall' && block.name === 'pi_fold_context')
          calls.set(block.id, String((block.arguments as { id?: unknown }).id));
    if (message.role === 'toolResult' && calls.has(message.toolCallId)) {
      const result = message as ToolResultMessage;
      expect(result.isError, `peek of ${calls.get(message.toolCallId)}`).toBe(false);
      results.set(
        calls.get(message.toolCallId)!,
        result.content.map((block) => (block.type === 'text' ? block.text : '')).join(''),
      );
    }
  }
  return results;
}

/**
 * A fold's exact source read back through peeks alone: each entry's bytes as the peek shows
 * them (one line each: the stored bytes are single-line JSON), child folds through their own
 * peeks, each checked against the store's record and the session's own message.
 */
function sourceFromPeeks(
  foldId: string,
  peeks: ReadonlyMap<string, string>,
  records: ReadonlyMap<string, FoldRecord>,
  pi: ScriptedPi,
): string {
  const record = records.get(foldId)!;
  const text = peeks.get(foldId);
  expect(text, `peek of ${foldId}`).toBeDefined();
  const lines = text!.split('\n');
  expect(lines[0]).toContain(`source sha256 ${record.sourceSha256}`);
  let source = '';
  let line = 1;
  for (const part of record.parts) {
    if (part.kind === 'fold') {
      expect(lines[line]).toContain(`--- child fold ${part.foldId}`);
      line += 2;
      source += sourceFromPeeks(part.foldId, peeks, records, pi);
      continue;
    }
    expect(lines[line]).toContain(`--- entry ${part.entryId} | sha256 ${part.sha256.slice(0, 16)} verified`);
    const bytes = lines[line + 1]!;
    line += 2;
    expect(sha256(bytes)).toBe(part.sha256);
    const entry = pi.sessionManager.getEntry(part.entryId);
    expect(entry?.type === 'message' && stableStringify(entry.message)).toBe(bytes);
    source += `${bytes}\n`;
  }
  expect(sha256(source)).toBe(record.sourceSha256);
  return source;
}

/** The child fold lines of the newest tool result in a request (receipts and notices may follow it). */
function childFoldLines(request: RecordedRequest): string {
  const result = [...request.messages].reverse().find((message) => message.role === 'toolResult');
  if (result?.role !== 'toolResult') return '';
  return result.content
    .map((block) => (block.type === 'text' ? block.text : ''))
    .join('\n')
    .split('\n')
    .filter((line) => line.startsWith('--- child fold '))
    .join('\n');
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

describe(`pi ${PI_VERSION}: a manual /compact keeps every fold (B6.1, I2)`, () => {
  it('lists every fold behind the cut in the summary the model gets, and each peeks byte for byte afterwards', async () => {
    const peekQueue: string[] = [];
    const peeked = new Set<string>();
    let firstAfterCompaction: RecordedRequest | undefined;
    const session = await foldedSession({
      peeks: (request) => {
        // The model reads fold ids from what it was sent: the summary at the top of the first
        // request after the cut, then the child lines of each peek it made.
        const read = firstAfterCompaction === undefined ? request.serialized[0]! : childFoldLines(request);
        firstAfterCompaction ??= request;
        for (const id of read.match(FOLD_ID) ?? []) if (!peeked.has(id)) peekQueue.push(id);
        const next = peekQueue.find((id) => !peeked.has(id));
        if (next === undefined) return { kind: 'text', text: 'every fold read' };
        peeked.add(next);
        return {
          kind: 'tools',
          calls: [
            { name: 'pi_fold_context', arguments: { action: 'peek', id: next, bytes: 200_000, ephemeral: false } },
          ],
        };
      },
    });
    const { pi, store, folding, setPhase } = session;
    const recordsBefore = await store.listFolds(folding.sessionId);
    expect(recordsBefore.length).toBeGreaterThanOrEqual(4);

    setPhase('compacting');
    await pi.session.compact();
    const compaction = pi.sessionManager.getEntries().find((entry) => entry.type === 'compaction');
    if (compaction?.type !== 'compaction') throw new Error('no compaction entry');
    expect(compaction.summary).toContain(PI_SUMMARY);
    expect(compaction.summary).toContain(FOLD_LIST_MARK);

    // Every fold whose span starts before the cut is named, each one once.
    const branch = pi.sessionManager.getBranch().map((entry) => entry.id);
    const cut = branch.indexOf(compaction.firstKeptEntryId);
    expect(cut).toBeGreaterThan(0);
    const behindCut = recordsBefore.filter((record) => branch.indexOf(record.firstEntryId) < cut);
    const roots = behindCut.filter(
      (record) =>
        !behindCut.some((other) => other.parts.some((part) => part.kind === 'fold' && part.foldId === record.id)),
    );
    expect(roots.length).toBeGreaterThan(0);
    for (const record of roots) expect(compaction.summary.split(record.id).length - 1, record.id).toBe(1);

    setPhase('peeking');
    await pi.session.prompt('Read every fold the summary names.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    // The summary with the list is what the model was sent after the cut.
    const sent = firstAfterCompaction!.serialized.join('\n');
    expect(sent).toContain(FOLD_LIST_MARK);
    for (const record of roots) expect(sent).toContain(record.id);

    // Nothing was dropped: the store and the engine still hold every fold, and each fold
    // behind the cut (nested ones through their parent's peek) reads back exactly.
    const recordsAfter = await store.listFolds(folding.sessionId);
    const idsAfter = new Set(recordsAfter.map((record) => record.id));
    for (const record of recordsBefore) {
      expect(idsAfter.has(record.id), record.id).toBe(true);
      expect(folding.runtime.view.lattice.record(record.id), record.id).toEqual(record);
    }
    // Every fold behind the cut was reached from the summary alone: listed, or nested in one listed.
    for (const record of behindCut) expect(peeked.has(record.id), record.id).toBe(true);
    const records = new Map(recordsAfter.map((record) => [record.id, record]));
    const peeks = peekResults(pi);
    for (const record of behindCut) sourceFromPeeks(record.id, peeks, records, pi);
    for (const request of pi.requests) assertPairing(request);
    // The person's /compact is theirs, and pi-fold's answer to it is no bypass.
    expect(folding.ownership.warnings).toEqual([]);

    // A second /compact lists them afresh; Pi's summariser updates its summary without the old list.
    setPhase('compacting');
    const sentBefore = pi.requests.length;
    await pi.session.compact();
    const summariserPrompts = pi.requests.slice(sentBefore).map((request) => request.serialized.join('\n'));
    expect(summariserPrompts.some((prompt) => prompt.includes('<previous-summary>'))).toBe(true);
    for (const prompt of summariserPrompts) expect(prompt).not.toContain(FOLD_LIST_MARK);
    const latest = [...pi.sessionManager.getBranch()].reverse().find((entry) => entry.type === 'compaction');
    if (latest?.type !== 'compaction' || latest.id === compaction.id) throw new Error('no second compaction');
    expect(latest.summary.split(FOLD_LIST_MARK).length).toBe(2);
    for (const record of roots) expect(latest.summary).toContain(record.id);
  }, 180_000);

  it("leaves the compaction to Pi, and says so, when Pi's compact() cannot write the summary", async () => {
    const { pi, folding, setPhase } = await foldedSession({ summariserFailsOnce: true });
    expect(folding.runtime.view.lattice.size).toBeGreaterThanOrEqual(4);
    setPhase('compacting');
    await pi.session.compact();
    const compaction = pi.sessionManager.getEntries().find((entry) => entry.type === 'compaction');
    if (compaction?.type !== 'compaction') throw new Error('no compaction entry');
    // Pi's own retry wrote the summary; pi-fold's list is not in it, and the person is told.
    expect(compaction.summary).toContain(PI_SUMMARY);
    expect(compaction.summary).not.toContain(FOLD_LIST_MARK);
    expect(pi.notices.filter((notice) => notice.includes('could not write the summary of this /compact')).length).toBe(
      1,
    );
    expect(pi.errors).toEqual([]);
    expect(folding.ownership.warnings).toEqual([]);
  }, 180_000);

  it('lists the folds of a resumed session before its first request, an expanded one with the folds inside it', async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-sessions-'));
    const first = await foldedSession({ sessionDirectory });
    const expandedRoot = first.folding.runtime.view.lattice
      .rootRecords()
      .find((record) => record.parts.some((part) => part.kind === 'fold'));
    if (expandedRoot === undefined) throw new Error('no fold with folds inside it');
    await first.folding.runtime.act({ action: 'expand', id: expandedRoot.id }, { origin: 'user' });
    const sessionFile = first.pi.sessionManager.getSessionFile()!;
    first.pi.session.dispose();

    const second = await openScriptedPi({
      script: () => ({ kind: 'text', text: PI_SUMMARY }),
      fold: { foldStore: first.store, settingsPath: SETTINGS },
      sessionFile,
      sessionDirectory,
    });
    await second.session.compact();
    // The summariser's requests are the only ones this process made (Pi asks twice when the
    // cut splits a turn, which the folded sizes of the edit landing can make it do).
    expect(second.requests.length).toBeGreaterThan(0);
    for (const request of second.requests)
      expect(request.serialized.join('\n')).toMatch(/<conversation>|# Conversation/);
    const compaction = second.sessionManager.getEntries().find((entry) => entry.type === 'compaction');
    if (compaction?.type !== 'compaction') throw new Error('no compaction entry');
    expect(compaction.summary).toContain(
      `- ${expandedRoot.id} (${expandedRoot.kind}, ${expandedRoot.entryCount} entries`,
    );
    expect(compaction.summary).toContain(', was expanded)');
    // Its source was in the window raw, so the folds inside it are named in their own right.
    const branch = second.sessionManager.getBranch().map((entry) => entry.id);
    const cut = branch.indexOf(compaction.firstKeptEntryId);
    for (const part of expandedRoot.parts) {
      if (part.kind !== 'fold') continue;
      const child = first.folding.runtime.view.lattice.record(part.foldId)!;
      if (branch.indexOf(child.firstEntryId) < cut) expect(compaction.summary).toContain(`- ${child.id} (`);
    }
    expect(second.errors).toEqual([]);
  }, 180_000);
});
