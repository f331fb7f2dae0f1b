import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { wrapState } from '../../adapters/backends/storage-shared/stored-records.ts';
import { PiEntryMapper } from '../../adapters/hosts/pi/message-entries.ts';
import { FoldError } from '../../core/fold-error.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { pairingViolations } from '../../testing/window-checks.ts';
import { auditSessionFolds } from './support/fold-audit.ts';
import { readingScript, SMALL_BUDGET_SETTINGS, sessionStores, withoutHostOrphans } from './support/pi-sessions.ts';
import { snapshotTree, treeChanges } from './support/tree-snapshot.ts';

/**
 * Corrupt inputs: a Pi session file with truncated or garbled lines, loaded by Pi's own
 * SessionManager with pi-fold loaded; a tampered blob; an engine state of an unknown schema
 * version. Each gives a clear error or a clean load, counts are reported, and nothing is
 * overwritten: the damaged files are byte-identical afterwards and no fold or blob changes.
 */
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** One healthy session with committed folds, built once and copied for each kind of damage. */
async function healthySession() {
  const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-corrupt-'));
  const fold = { settings: SMALL_BUDGET_SETTINGS, settingsPath: join(sessionDirectory, 'absent-settings.json') };
  const pi = await openScriptedPi({ script: readingScript(() => 16), sessionDirectory, fold });
  await pi.session.prompt('Read blobs.');
  await settle(pi.session);
  const folding = await pi.registration.sessions.forSession(pi.sessionManager);
  expect([...folding.runtime.view.lattice.allRecords()].length).toBeGreaterThan(0);
  const sessionFile = pi.sessionManager.getSessionFile()!;
  const sessionId = pi.sessionManager.getSessionId();
  pi.session.dispose();
  return { sessionDirectory, sessionFile, sessionId, fold };
}

type Damage = (lines: string[]) => string[];
const damages: readonly [string, Damage][] = [
  [
    'the last line cut in half',
    (lines) => [...lines.slice(0, -1), lines.at(-1)!.slice(0, Math.floor(lines.at(-1)!.length / 2))],
  ],
  [
    'a middle line garbled',
    (lines) =>
      lines.map((line, index) => (index === Math.floor(lines.length / 2) ? line.replace(/[a-z]/g, '#') : line)),
  ],
  ['a non-JSON line inserted', (lines) => [...lines.slice(0, 3), 'this is not json \u0000\u0007', ...lines.slice(3)]],
  ['a line of NUL bytes', (lines) => [...lines.slice(0, 5), '\u0000'.repeat(64), ...lines.slice(5)]],
  [
    'a tool result line removed',
    (lines) =>
      lines.filter(
        (line, index) => !(index > lines.length / 2 && line.includes('"role":"toolResult"')) || index % 2 === 0,
      ),
  ],
];

describe('hardening: corrupt inputs give clear errors and overwrite nothing', () => {
  it('damaged Pi session files: Pi loads what it can, pi-fold stays valid, the files and folds are untouched', {
    timeout: 180_000,
  }, async () => {
    const healthy = await healthySession();
    const { root, foldStore } = sessionStores(healthy.sessionDirectory);
    const originalLines = readFileSync(healthy.sessionFile, 'utf8')
      .split('\n')
      .filter((line) => line.length > 0);
    const report: string[] = [];
    for (const [label, damage] of damages) {
      // Each damage goes to two copies: one Pi opens alone, one Pi opens with pi-fold loaded.
      // Pi itself may rewrite a file it migrates; pi-fold must add no write of its own.
      const damagedFile = join(healthy.sessionDirectory, `damaged-${report.length}.jsonl`);
      const piAloneFile = join(healthy.sessionDirectory, `damaged-${report.length}-pi-alone.jsonl`);
      const damagedText = `${damage([...originalLines]).join('\n')}\n`;
      writeFileSync(damagedFile, damagedText);
      writeFileSync(piAloneFile, damagedText);
      const written = createHash('sha256').update(damagedText).digest('hex');
      SessionManager.open(piAloneFile, healthy.sessionDirectory);
      const before = digest(piAloneFile);
      const piRewrote = before !== written;
      const immutableBefore = await snapshotTree(root, [join(root, 'sessions', healthy.sessionId, 'state.json')]);
      let appended: string[] = [];
      const manager = SessionManager.open(damagedFile, healthy.sessionDirectory);
      const branch = manager.getBranch();
      const messages = branch.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
      const pi = await openScriptedPi({
        script: () => ({ kind: 'text', text: 'unused' }),
        sessionDirectory: healthy.sessionDirectory,
        sessionFile: damagedFile,
        fold: healthy.fold,
      });
      const folding = await pi.registration.sessions.forSession(pi.sessionManager);
      const mapped = new PiEntryMapper().map(messages, branch);
      const result = await folding.runtime.project(mapped.entries);
      const pairing = withoutHostOrphans(pairingViolations(result.messages), pi.sessionManager);
      expect(pairing.violations, `${label}: the projection`).toEqual([]);
      expect(pi.errors, `${label}: extension errors`).toEqual([]);
      const audit = await auditSessionFolds(
        foldStore,
        folding.sessionId,
        new Map(mapped.entries.map((entry) => [entry.id, entry.bytes])),
      );
      // A fold whose entries the damage removed stays stored (its blobs still verify) but is not placed.
      const unplaced = audit.losses.filter((loss) => /which the transcript does not hold/.test(loss)).length;
      expect(
        audit.losses.filter((loss) => !/which the transcript does not hold/.test(loss)),
        `${label}: fold audit`,
      ).toEqual([]);
      const outcome = `loaded ${branch.length}/${originalLines.length - 1} entries, ${audit.folds} folds checked, ${unplaced} entries of folds the damage removed, ${pairing.orphans} call/result gaps the damage itself left`;
      pi.session.dispose();
      // Pi's migration gives entries fresh random ids, so a file Pi rewrote is compared by its lines.
      if (piRewrote)
        expect(
          readFileSync(damagedFile, 'utf8').split('\n').length,
          `${label}: pi-fold added to the session file`,
        ).toBe(readFileSync(piAloneFile, 'utf8').split('\n').length);
      else
        expect(
          readFileSync(damagedFile, 'utf8').startsWith(damagedText),
          `${label}: the damaged bytes were overwritten`,
        ).toBe(true);
      // Anything after the damaged bytes is an entry Pi's AgentSession appended on opening (pi-fold writes no session entries).
      appended = readFileSync(damagedFile, 'utf8')
        .slice(damagedText.length)
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => String((JSON.parse(line) as { type?: unknown }).type));
      if (!piRewrote)
        expect(
          appended.filter((type) => type === 'message' || type === 'custom'),
          `${label}: entries appended`,
        ).toEqual([]);
      expect(
        treeChanges(
          immutableBefore,
          await snapshotTree(root, [join(root, 'sessions', healthy.sessionId, 'state.json')]),
        ).filter((change) => !change.startsWith('created')),
        `${label}: a stored fold or blob changed`,
      ).toEqual([]);
      report.push(
        `${label}: ${outcome}${piRewrote ? ' (Pi itself rewrote the damaged file while migrating it)' : appended.length > 0 ? `; damaged bytes intact, Pi appended ${appended.join(', ')}` : '; file byte-identical'}`,
      );
    }
    console.info(`[corrupt session files]\n  ${report.join('\n  ')}`);
    rmSync(healthy.sessionDirectory, { recursive: true, force: true });
  });

  it('a tampered blob is refused by peek and expand with a code naming its sha, and stays as found', {
    timeout: 120_000,
  }, async () => {
    const healthy = await healthySession();
    const { foldStore } = sessionStores(healthy.sessionDirectory);
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'unused' }),
      sessionDirectory: healthy.sessionDirectory,
      sessionFile: healthy.sessionFile,
      fold: healthy.fold,
    });
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    const branch = pi.sessionManager.getBranch();
    await folding.runtime.project(
      new PiEntryMapper().map(
        branch.flatMap((entry) => (entry.type === 'message' ? [entry.message] : [])),
        branch,
      ).entries,
    );
    const record = folding.runtime.view.visibleFolds
      .map((placed) => placed.record)
      .find((candidate) => candidate.parts.some((part) => part.kind === 'entry'))!;
    const part = record.parts.find((candidate) => candidate.kind === 'entry')! as { sha256: string };
    const path = foldStore.layout.blobPath(part.sha256);
    const bytes = readFileSync(path);
    const middle = Math.floor(bytes.length / 2);
    bytes[middle] = bytes[middle]! ^ 0x20;
    chmodSync(path, 0o644);
    writeFileSync(path, bytes);
    chmodSync(path, 0o444);
    const tampered = digest(path);
    let refusals = 0;
    for (const args of [
      { action: 'peek', id: record.id },
      { action: 'expand', id: record.id },
    ]) {
      const error = await folding.runtime.act(args).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(FoldError.isInstance(error), `${args.action} of a tampered fold must be refused`).toBe(true);
      expect((error as FoldError).code).toBe('STORE.HASH_MISMATCH');
      expect((error as FoldError).message).toContain(part.sha256);
      refusals += 1;
    }
    expect(digest(path), 'the tampered blob was rewritten').toBe(tampered);
    console.info(
      `[corrupt blob] ${refusals} refusals, each STORE.HASH_MISMATCH naming ${part.sha256.slice(0, 12)}…; blob left as found`,
    );
    pi.session.dispose();
    rmSync(healthy.sessionDirectory, { recursive: true, force: true });
  });

  it('an engine state of an unknown schema version is refused by name and never overwritten', {
    timeout: 120_000,
  }, async () => {
    const healthy = await healthySession();
    const { foldStore } = sessionStores(healthy.sessionDirectory);
    const statePath = foldStore.layout.statePath(healthy.sessionId);
    const current = (await foldStore.loadState(healthy.sessionId))!;
    // A well-formed envelope (its own checksum right) around a body from a future release.
    const future = { ...current, schemaVersion: 2 } as unknown as typeof current;
    chmodSync(statePath, 0o644);
    writeFileSync(statePath, JSON.stringify(wrapState(healthy.sessionId, future)));
    const before = digest(statePath);
    copyFileSync(statePath, `${statePath}.evidence`);
    await expect(foldStore.loadState(healthy.sessionId)).rejects.toMatchObject({ code: 'STORE.SCHEMA_VERSION' });
    const pi = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'answered' }),
      sessionDirectory: healthy.sessionDirectory,
      sessionFile: healthy.sessionFile,
      fold: healthy.fold,
    });
    await pi.session.prompt('Continue.');
    await settle(pi.session);
    const named = [...pi.errors, ...pi.notices].filter(
      (message) => /STORE\.SCHEMA_VERSION/.test(message) && /schema version 2/.test(message),
    );
    expect(named.length, 'the person is told why, by name').toBeGreaterThan(0);
    expect(digest(statePath), 'the state of the newer release was overwritten').toBe(before);
    console.info(
      `[corrupt state] schema version 2 refused (${named.length} message(s), e.g. "${named[0]!.slice(0, 140)}"); state file byte-identical`,
    );
    pi.session.dispose();
    rmSync(healthy.sessionDirectory, { recursive: true, force: true });
  });
});
