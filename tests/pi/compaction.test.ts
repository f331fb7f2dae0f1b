import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { RECOVERY_SUMMARY_MARK } from '../../adapters/hosts/pi/compaction-guard.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { readBlob } from './support/blob-replies.ts';
import { assertPairing } from './support/prompt-checks.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';

describe('pi: compaction interception (B6.1)', () => {
  it('turns an overflow into a recovery: commit, one retry that succeeds, one notice, nothing summarised', async () => {
    let overflowAt = -1;
    const script = (request: RecordedRequest): ScriptedReply => {
      if (overflowAt < 0 && request.promptTokens > 100_000) {
        overflowAt = request.index;
        return { kind: 'overflow' };
      }
      if (request.index >= 30) return { kind: 'text', text: 'finished after recovery' };
      return readBlob(request);
    };
    // The band lets the window grow to the overflow this test provokes; the cost policy commits long before.
    const pi = await openScriptedPi({
      script,
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: SETTINGS,
        settings: { ...KEEP_BLOBS_RAW, scheduling: 'band' },
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    expect(overflowAt).toBeGreaterThan(0);
    const failed = pi.requests[overflowAt]!;
    const retry = pi.requests[overflowAt + 1]!;
    const retryRow = pi.ledger[overflowAt + 1]!;
    expect(retryRow.causes).toContain('overflow-recovery');
    expect(retryRow.foldsLanded).toBeGreaterThan(0);
    expect(retry.promptTokens).toBeLessThan(failed.promptTokens);
    expect(pi.requests.at(-1)!.index).toBe(30);
    const compactions = pi.sessionManager.getEntries().filter((entry) => entry.type === 'compaction');
    expect(compactions.length).toBe(1);
    expect(compactions[0]!.type === 'compaction' && compactions[0]!.summary.startsWith(RECOVERY_SUMMARY_MARK)).toBe(
      true,
    );
    // Nothing was summarised: no request went out for a summary, and the note never reaches the model.
    expect(
      pi.requests.every((request) => request.serialized.every((line) => !line.includes(RECOVERY_SUMMARY_MARK))),
    ).toBe(true);
    expect(pi.notices.filter((notice) => notice.includes('refused the prompt as too long')).length).toBe(1);
    expect(pi.errors).toEqual([]);
    // pi-fold's own recovery compaction is not a compaction behind its back.
    expect((await pi.registration.sessions.forSession(pi.sessionManager)).ownership.warnings).toEqual([]);
    for (const request of pi.requests) assertPairing(request);
  }, 120_000);

  it('cancels threshold compaction and leaves a manual /compact untouched', async () => {
    let phase: 'reading' | 'manual' = 'reading';
    const script = (request: RecordedRequest): ScriptedReply => {
      if (phase === 'manual') return { kind: 'text', text: 'Summary: blobs were read.' };
      if (request.index >= 6) return { kind: 'text', text: 'done', reportTokens: 190_000 };
      return readBlob(request);
    };
    const pi = await openScriptedPi({
      script,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    // Pi saw 190k of a 200k window at agent_end: its threshold compaction fired and was cancelled.
    expect(pi.requests.length).toBe(7);
    expect(pi.sessionManager.getEntries().some((entry) => entry.type === 'compaction')).toBe(false);
    phase = 'manual';
    await pi.session.compact();
    const compactions = pi.sessionManager.getEntries().filter((entry) => entry.type === 'compaction');
    expect(compactions.length).toBe(1);
    expect(compactions[0]!.type === 'compaction' && compactions[0]!.summary).toContain('Summary: blobs were read.');
    expect(pi.errors).toEqual([]);
    // The person's /compact is theirs: no ownership warning.
    expect((await pi.registration.sessions.forSession(pi.sessionManager)).ownership.warnings).toEqual([]);
  }, 120_000);
});
