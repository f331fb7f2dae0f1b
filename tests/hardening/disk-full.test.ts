import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { Projection } from '../../ports/projection-sink.port.ts';
import { settle } from '../../testing/pi/scripted-pi.ts';
import { appendOnlyViolations, pairingViolations } from '../../testing/window-checks.ts';
import { auditSessionFolds } from './support/fold-audit.ts';
import { branchBytes, openPiOnFaultyDisk } from './support/pi-sessions.ts';

/**
 * Disk full: a real Pi session whose fold and evidence stores start refusing every write
 * (ENOSPC) mid-session, then accept them again, several times. Requests keep going out with
 * the window intact, the person is told once per store per outage, and folding resumes when
 * the disk has room.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const OUTAGES = long ? 6 : 2;
/** Reads that fill the 60k-token budget past maxTarget (a commit), and reads that fit while no fold can land. */
const HEALTHY_READS = 14;
const OUTAGE_READS = 5;

const foldStoreNotices = (notices: readonly string[]) =>
  notices.filter((notice) => /the commit was skipped|refused to save this session's state/.test(notice));
const evidenceNotices = (notices: readonly string[]) =>
  notices.filter((notice) => /refused a spilled item/.test(notice));

describe('hardening: a full disk under a real Pi session', () => {
  it(`sends every request, tells the person once per outage, commits nothing unreadable, and recovers (${OUTAGES} outages)`, {
    timeout: 60_000 * OUTAGES,
  }, async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-diskfull-'));
    const projections: Projection[] = [];
    let reads = HEALTHY_READS;
    const { pi, faults, realFolds } = await openPiOnFaultyDisk(sessionDirectory, () => reads, {
      specificationVersion: 'v1',
      accept: (projection) => projections.push(projection),
    });
    const landed = () => pi.ledger.reduce((sum, row) => sum + row.foldsLanded, 0);

    await pi.session.prompt('Read blobs while the disk has room.');
    await settle(pi.session);
    expect(landed(), 'the healthy phase commits folds').toBeGreaterThan(0);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    for (let outage = 1; outage <= OUTAGES; outage += 1) {
      // A person's /fold before the outage, so the outage's reads fit the budget unfolded
      // (with no fold able to land, a window past the budget is refused, docs/behaviour.md I6, not sent).
      folding.runtime.requestCommit('user-fold');
      reads = 1;
      await pi.session.prompt(`Before outage ${outage}: one more read.`);
      await settle(pi.session);
      const landedBefore = landed();
      const refusedBefore = faults.refusals.blob + faults.refusals.state + faults.refusals.evidence;
      faults.refuse();
      reads = OUTAGE_READS;
      const requestsBefore = pi.requests.length;
      const noticesBefore = pi.notices.length;
      await pi.session.prompt(`Outage ${outage}: keep reading while the disk is full.`);
      await settle(pi.session);
      // A person asks for a fold mid-outage: the commit itself now meets the full disk.
      folding.runtime.requestCommit('user-fold');
      reads = 0;
      await pi.session.prompt(`Outage ${outage}: /fold while the disk is full.`);
      await settle(pi.session);
      const notices = pi.notices.slice(noticesBefore);
      expect(pi.requests.length - requestsBefore, 'every request of the outage reached the provider').toBe(
        OUTAGE_READS + 2,
      );
      expect(
        faults.refusals.blob + faults.refusals.state + faults.refusals.evidence - refusedBefore,
        'the outage was hit more than once',
      ).toBeGreaterThan(2);
      expect(faults.refusals.blob, 'the forced commit met the full disk').toBeGreaterThanOrEqual(outage);
      expect(landed(), 'nothing lands while the store refuses writes').toBe(landedBefore);
      expect(foldStoreNotices(notices), 'one fold-store notice for the whole outage').toHaveLength(1);
      expect(evidenceNotices(notices), 'one evidence notice for the whole outage').toHaveLength(1);
      for (const notice of notices) expect(notice).toMatch(/ENOSPC/);
      expect(notices.filter((notice) => !/ENOSPC/.test(notice))).toEqual([]);

      faults.accept();
      reads = HEALTHY_READS;
      await pi.session.prompt(`Outage ${outage} is over: read more.`);
      await settle(pi.session);
      expect(landed(), 'folding resumes once writes succeed').toBeGreaterThan(landedBefore);
    }
    expect(pi.errors).toEqual([]);

    for (const placed of folding.runtime.view.visibleFolds) {
      await readFoldSource(realFolds, (id) => folding.runtime.view.lattice.record(id), placed.record.id);
    }
    const audit = await auditSessionFolds(realFolds, folding.sessionId, branchBytes(pi.sessionManager));
    expect(audit.losses).toEqual([]);
    expect(audit.folds).toBeGreaterThan(0);
    expect(appendOnlyViolations(projections)).toEqual([]);
    for (const projection of projections) expect(pairingViolations(projection.messages)).toEqual([]);
    const { blob, fold, state, evidence } = faults.refusals;
    console.info(
      `[disk-full] ${OUTAGES} outages, ${pi.requests.length} requests all sent, refused writes blob/fold/state/evidence ${blob}/${fold}/${state}/${evidence}, ${audit.folds} folds audited (${audit.entriesCompared} entries byte-equal), 0 lost`,
    );
    pi.session.dispose();
  });
});
