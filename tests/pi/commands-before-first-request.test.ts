import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeViewCounts } from '../../application/viewer/view-counts.ts';
import { createFoldRuntime } from '../../composition/index.ts';
import { formatStatus, statusReport } from '../../core/actions/status-action.ts';
import { KEEP_BLOBS_RAW, openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { readBlob } from './support/blob-replies.ts';

/**
 * What a person reads before a window exists: a session reopened with `pi -c` has pending marks
 * but has not projected anything yet, so their sizes are not measured; a runtime with no model
 * and no budget setting does not know its budget. Neither may read as a measurement of zero.
 */
describe('status before the first request', () => {
  it('after a reopen (pi -c), pending marks say their sizes are measured at the next request', async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-reopen-status-'));
    const settingsPath = join(sessionDirectory, 'no-settings.json');
    const first = await openScriptedPi({
      script: (request) => (request.index >= 40 ? { kind: 'text', text: 'done' } : readBlob(request)),
      fold: { settingsPath, settings: KEEP_BLOBS_RAW },
      sessionDirectory,
    });
    await first.session.prompt('Read blobs.');
    await settle(first.session);
    const before = await first.registration.sessions.forSession(first.sessionManager);
    expect(before.runtime.view.memory.marks.length).toBeGreaterThan(0);
    const sessionFile = first.sessionManager.getSessionFile()!;
    first.session.dispose();

    const second = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'again' }),
      fold: { settingsPath },
      sessionFile,
      sessionDirectory,
    });
    await second.session.prompt('/fold-status');
    const status = second.notices.at(-1) ?? '';
    const markLines = status.split('\n').filter((line) => line.startsWith('- ') && line.includes(' by '));
    expect(markLines.length).toBeGreaterThan(0);
    for (const line of markLines) {
      expect(line).not.toContain('frees ≈0 tokens');
      expect(line).toContain('measured at the next request');
    }
    expect(status).not.toContain('(≈0 tokens)');
    // After a request the sizes are measured again.
    await second.session.prompt('Continue.');
    await settle(second.session);
    await second.session.prompt('/fold-status');
    const measured = second.notices.at(-1) ?? '';
    if (measured.includes(' by runtime')) expect(measured).toMatch(/frees ≈[1-9]\d* tokens/);
  }, 120_000);

  it('/fold with an unknown id names it as "not a pending mark"', async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-unknown-mark-'));
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'hi' }),
      fold: { settingsPath: join(sessionDirectory, 'no-settings.json') },
      sessionDirectory,
    });
    await pi.session.prompt('/fold fold_nosuchmark');
    expect(pi.notices.at(-1)).toBe(
      '/fold: fold_nosuchmark is not a pending mark (see /fold-status); nothing was requested',
    );
  }, 60_000);

  it('a runtime that knows no budget says when it will, not "budget unknown tokens"', async () => {
    const composed = await createFoldRuntime({ sessionId: 'no-budget-yet', store: 'memory' });
    const text = formatStatus(statusReport(composed.runtime.view));
    await composed.dispose();
    expect(text).not.toContain('unknown tokens');
    expect(text.split('\n')[0]).toMatch(
      /^budget not known until the first request .* · occupancy unknown \(no request yet\) · /,
    );
  });

  it('page counts are singular for one', () => {
    const one = [{}] as never[];
    expect(describeViewCounts({ requests: one, commits: one, folds: [] })).toBe('1 request, 1 commit, 0 folds');
  });
});
