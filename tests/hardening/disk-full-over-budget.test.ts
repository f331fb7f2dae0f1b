import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { settle } from '../../testing/pi/scripted-pi.ts';
import { auditSessionFolds } from './support/fold-audit.ts';
import { branchBytes, openPiOnFaultyDisk } from './support/pi-sessions.ts';

const refusals = (notices: readonly string[]) => notices.filter((notice) => notice.includes('refused to send'));

/**
 * Disk full while the window grows past the budget, in a real Pi session: with no fold able
 * to land, pi-fold refuses to send (docs/behaviour.md I6), and the person must hear the
 * outage as the cause and waiting it out as the remedy, with an estimate that follows the
 * window. Once the disk has room the next request commits and goes out.
 */
describe('hardening: a full disk with the window over the budget', () => {
  it('refuses naming the store and how to go on, then commits on the first request after', {
    timeout: 120_000,
  }, async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-diskfull-over-'));
    let reads = 14;
    const { pi, faults, realFolds } = await openPiOnFaultyDisk(sessionDirectory, () => reads);
    await pi.session.prompt('Read while the disk has room.');
    await settle(pi.session);
    faults.refuse();
    for (let round = 0; round < 4; round += 1) {
      reads = 6;
      await pi.session.prompt(`Outage, round ${round}: keep reading.`);
      await settle(pi.session);
    }
    const during = refusals(pi.notices);
    expect(during.length, 'the window passed the budget during the outage').toBeGreaterThan(1);
    for (const notice of during) {
      expect(notice).toMatch(/the fs store refused the commit that would have made room/);
      expect(notice).toMatch(/To go on: send it again once the fs store accepts writes/);
      expect(notice).not.toMatch(/[Uu]npin/);
    }
    // Each refused prompt adds its own words: the estimate quoted follows the window.
    const estimates = during.map((notice) => Number(/about (\d+) tokens/.exec(notice)![1]));
    for (let index = 1; index < estimates.length; index += 1)
      expect(estimates[index]).toBeGreaterThan(estimates[index - 1]!);

    faults.accept();
    const requestsBefore = pi.requests.length;
    const landedBefore = pi.ledger.reduce((sum, row) => sum + row.foldsLanded, 0);
    reads = 1;
    await pi.session.prompt('The disk has room again.');
    await settle(pi.session);
    expect(refusals(pi.notices), 'no refusal once the store accepts writes').toHaveLength(during.length);
    expect(pi.requests.length).toBeGreaterThan(requestsBefore);
    expect(pi.ledger[pi.ledger.length - (pi.requests.length - requestsBefore)]!.foldsLanded).toBeGreaterThan(0);
    expect(pi.ledger.reduce((sum, row) => sum + row.foldsLanded, 0)).toBeGreaterThan(landedBefore);

    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    const audit = await auditSessionFolds(realFolds, folding.sessionId, branchBytes(pi.sessionManager));
    expect(audit.losses).toEqual([]);
    expect(audit.folds).toBeGreaterThan(0);
    pi.session.dispose();
  });
});
