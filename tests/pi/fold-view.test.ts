import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEEP_BLOBS_RAW, openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { readBlob } from './support/blob-replies.ts';

describe('pi: /fold-view', () => {
  it('writes the viewer page of the current session beside its store and prints the path', async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-view-'));
    const settingsPath = join(sessionDirectory, 'no-settings.json');
    const pi = await openScriptedPi({
      script: (request) => (request.index >= 30 ? { kind: 'text', text: 'done' } : readBlob(request)),
      fold: { settingsPath, settings: KEEP_BLOBS_RAW },
      sessionDirectory,
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const commits = pi.ledger.filter((row) => row.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(0);
    pi.notices.length = 0;
    await pi.session.prompt('/fold-view');
    const notice = pi.notices.at(-1) ?? '';
    const path = /→ (\S+\.html)$/.exec(notice)?.[1];
    expect(notice).toMatch(new RegExp(`^/fold-view: ${pi.ledger.length} requests, \\d+ commits, \\d+ folds → `));
    expect(path).toBeDefined();
    expect(path!.startsWith(join(sessionDirectory))).toBe(true);
    expect(existsSync(path!)).toBe(true);
    const html = readFileSync(path!, 'utf8');
    // Flushed before reading: the newest request is on the page too.
    expect((html.match(/<circle class="point/g) ?? []).length).toBe(pi.ledger.length);
    expect((html.match(/<line class="commit"/g) ?? []).length).toBe(commits.length);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    for (const placed of folding.runtime.view.visibleFolds) expect(html).toContain(`data-fold="${placed.record.id}"`);
    expect(pi.errors).toEqual([]);
  }, 120_000);
});
