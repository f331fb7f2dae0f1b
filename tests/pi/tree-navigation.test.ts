import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { assertPairing } from './support/prompt-checks.ts';

describe('pi: /tree navigation', () => {
  it('projects only the new branch: folds whose entries left the branch leave the window, nothing breaks', async () => {
    let stopAt = 40;
    const script = (request: RecordedRequest): ScriptedReply =>
      request.index >= stopAt
        ? { kind: 'text', text: 'done' }
        : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };
    const pi = await openScriptedPi({
      script,
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: KEEP_BLOBS_RAW,
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const { runtime } = await pi.registration.sessions.forSession(pi.sessionManager);
    const foldsBefore = runtime.view.visibleFolds.map((placed) => placed.record.id);
    expect(foldsBefore.length).toBeGreaterThan(0);
    // Go back to the first user message's parent: the whole first run leaves the branch.
    const firstUser = pi.sessionManager
      .getBranch()
      .find((entry) => entry.type === 'message' && entry.message.role === 'user')!;
    await pi.session.navigateTree(firstUser.id, { summarize: false });
    stopAt = pi.requests.length + 2;
    const requestsBefore = pi.requests.length;
    await pi.session.prompt('Start over: read two blobs.');
    await settle(pi.session);
    const after = pi.requests.slice(requestsBefore);
    expect(after.length).toBeGreaterThan(0);
    for (const request of after) {
      assertPairing(request);
      for (const id of foldsBefore) expect(request.serialized.join('\n')).not.toContain(id);
    }
    expect(pi.ledger[requestsBefore]!.causes).toContain('transcript-changed');
    expect(pi.ledger.every((row) => !row.unattributed)).toBe(true);
    expect(pi.errors).toEqual([]);
  }, 120_000);
});
