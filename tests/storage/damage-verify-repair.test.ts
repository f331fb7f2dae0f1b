import { readFile } from 'node:fs/promises';
import { afterAll, describe, expect, test } from 'vitest';
import { runCliCaptured } from './support/cli-capture.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';
import {
  type BuiltStore,
  buildStore,
  copyRecordOver,
  type DamagedBackend,
  driveOn,
  evictAllButRequestLog,
  evictEverything,
  listedRecords,
  putEvidence,
  readStore,
  remove,
  reportedKey,
  tear,
  tearRequestLogMidway,
} from './support/store-damage.ts';

/**
 * The same store accident on the fs store and on SQLite gets the same verdicts: `verify`
 * names each damaged value by key (never "failed to walk"), `repair` mends exactly what
 * `verify` names (setting damage aside, never deleting an intact byte), one session's damage
 * never stops `view`, `gc` or `repair` of another, and the damaged session works again.
 */
const scratch = await scratchDirectory('damage-verify-repair');
afterAll(() => removeScratch(scratch), 120_000);
let runs = 0;

async function fresh(backend: DamagedBackend): Promise<BuiltStore> {
  runs += 1;
  return buildStore(backend, `${scratch}/${backend}-${runs}`);
}

const cli = (...args: string[]) => runCliCaptured(args);

/** `verify` finds problems (exit 1) and names each key; it never stops at one. */
async function expectVerifyNames(built: BuiltStore, keys: readonly string[]): Promise<string> {
  const verified = await cli('verify', built.target);
  expect(verified.error).toBe('');
  expect(verified.exitCode, verified.out).toBe(1);
  for (const key of keys) expect(verified.out).toContain(key);
  return verified.out;
}

/** The other session is untouched by the damage: view, repair and gc all work. */
async function expectOtherSessionWorks(built: BuiltStore): Promise<void> {
  const view = await cli('view', built.target, '--session', 'sb', '--out', `${built.target}-sb.html`);
  expect(view.exitCode, view.error).toBe(0);
  const repair = await cli('repair', built.target, '--session', 'sb', '--dry-run');
  expect(repair.exitCode, repair.error).toBe(0);
  expect(repair.out).toContain('nothing to repair');
  const gc = await cli('gc', built.target, '--dry-run');
  expect(gc.exitCode, gc.error).toBe(0);
}

/** After `repair`, `verify` is clean, a second repair has nothing to do, and the session folds on. */
async function expectMended(built: BuiltStore, sessionId: string): Promise<void> {
  const verified = await cli('verify', built.target);
  expect(verified.exitCode, verified.out).toBe(0);
  const again = await cli('repair', built.target, '--session', sessionId);
  expect(again.out).toContain('nothing to repair');
  await driveOn(built, sessionId, 15);
  const view = await cli('view', built.target, '--session', sessionId, '--out', `${built.target}-${sessionId}.html`);
  expect(view.exitCode, view.error).toBe(0);
  expect((await cli('gc', built.target, '--dry-run')).exitCode).toBe(0);
}

for (const backend of ['fs', 'sqlite'] as const) {
  describe(`${backend}: damage that verify names and repair mends`, () => {
    test('a torn state, record and blob of one session: named by key, the other session unaffected, all mended', async () => {
      const built = await fresh(backend);
      const records = await listedRecords(built, 'sa');
      const victim = records.find((record) => record.parts.every((part) => part.kind === 'entry'))!;
      // A blob only this session needs (the two sessions share a few entries, e.g. the first prompt).
      const shared = new Set(
        (await listedRecords(built, 'sb')).flatMap((record) =>
          record.parts.map((part) => (part.kind === 'entry' ? part.sha256 : '')),
        ),
      );
      const entry = records
        .filter((record) => record.id !== victim.id)
        .flatMap((record) => record.parts)
        .find(
          (part) =>
            part.kind === 'entry' &&
            !shared.has(part.sha256) &&
            !victim.parts.some((p) => p.kind === 'entry' && p.sha256 === part.sha256),
        )!;
      if (entry?.kind !== 'entry') throw new Error('no entry');
      const things = [
        { kind: 'state', sessionId: 'sa' },
        { kind: 'fold', sessionId: 'sa', foldId: victim.id },
        { kind: 'blob', sha256: entry.sha256 },
      ] as const;
      for (const thing of things) await tear(built, thing);
      const report = await expectVerifyNames(
        built,
        things.map((thing) => reportedKey(built, thing)),
      );
      expect(report).not.toContain('failed to walk');
      await expectOtherSessionWorks(built);

      const dryRun = await cli('repair', built.target, '--session', 'sa', '--dry-run');
      expect(dryRun.exitCode, dryRun.error).toBe(0);
      expect(dryRun.out).toContain('nothing was changed (dry run)');
      expect((await cli('verify', built.target)).exitCode).toBe(1);

      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain(`SET ASIDE ${reportedKeyAsRepairNames(built, things[1])}`);
      expect(repaired.out).toContain(`SET ASIDE blob/${entry.sha256}`);
      expect(repaired.out).toMatch(/rebuilt the state from \d+ verified fold/);
      await expectMended(built, 'sa');
    }, 240_000);

    test('a torn record, blob and request-log row: the session opens and folds on before any repair', async () => {
      const built = await fresh(backend);
      const records = await listedRecords(built, 'sa');
      const victim = records.find((record) => record.parts.every((part) => part.kind === 'entry'))!;
      const entry = victim.parts[0]!;
      if (entry.kind !== 'entry') throw new Error('no entry');
      await tear(built, { kind: 'fold', sessionId: 'sa', foldId: victim.id });
      await tear(built, { kind: 'blob', sha256: entry.sha256 });
      if (backend === 'fs') await tearRequestLogMidway(built, 'sa');
      else await tear(built, { kind: 'request-log', sessionId: 'sa' });
      const logged = await readStore(built, async (store) => (await store.readRequestLog!('sa')).length);
      // Every request goes out whole (driveOn checks each), and the log keeps growing past the tear.
      await driveOn(built, 'sa', 20);
      expect(await readStore(built, async (store) => (await store.readRequestLog!('sa')).length)).toBeGreaterThan(
        logged,
      );
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      await expectMended(built, 'sa');
    }, 240_000);

    test('a fold record copied over another id: verify catches it, the session is not refused, repair sets it aside', async () => {
      const built = await fresh(backend);
      const [first, second] = await listedRecords(built, 'sa');
      // Copied under a process that has the session open: it keeps folding, every request goes out.
      await driveOn(built, 'sa', 25, () => copyRecordOver(built, 'sa', first!.id, second!.id));
      const report = await expectVerifyNames(built, [
        reportedKey(built, { kind: 'fold', sessionId: 'sa', foldId: second!.id }),
      ]);
      expect(report).toContain(`holds fold ${first!.id}, not ${second!.id}`);
      // And so does a process that opens it afterwards.
      await driveOn(built, 'sa', 25);
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain(
        `SET ASIDE ${reportedKeyAsRepairNames(built, { kind: 'fold', sessionId: 'sa', foldId: second!.id })}`,
      );
      await expectMended(built, 'sa');
    }, 240_000);

    test('a damaged record the session no longer lists: verify and repair agree, gc goes on', async () => {
      const built = await fresh(backend);
      const records = await listedRecords(built, 'sa');
      const nested = new Set(
        records.flatMap((record) => record.parts.flatMap((p) => (p.kind === 'fold' ? [p.foldId] : []))),
      );
      const dropped = records.find((record) => !nested.has(record.id))!;
      // Dropped from the state (a span refolded, a repair's choice), then damaged in place.
      await readStore(built, async (store) => {
        const state = (await store.loadState('sa'))!;
        const foldIds = state.foldIds.filter((foldId) => foldId !== dropped.id);
        await store.saveState('sa', { ...state, revision: state.revision + 1, foldIds, expanded: [] });
      });
      await tear(built, { kind: 'fold', sessionId: 'sa', foldId: dropped.id });
      await expectVerifyNames(built, [reportedKey(built, { kind: 'fold', sessionId: 'sa', foldId: dropped.id })]);
      const gc = await cli('gc', built.target);
      expect(gc.exitCode, gc.error).toBe(0);
      expect(gc.out).toContain('skipped damaged');
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain('SET ASIDE');
      await expectMended(built, 'sa');
    }, 240_000);

    test('a deleted state with its records kept is a problem repair mends, not an all-clear', async () => {
      const built = await fresh(backend);
      await remove(built, { kind: 'state', sessionId: 'sa' });
      await expectVerifyNames(built, [`session/sa/state`]);
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toMatch(/rebuilt the state from \d+ verified fold/);
      await expectMended(built, 'sa');
    }, 240_000);

    test('a torn request log: verify names it, view reads the rest, repair mends it', async () => {
      const built = await fresh(backend);
      const before = await readStore(built, async (store) => (await store.readRequestLog!('sa')).length);
      if (backend === 'fs') await tearRequestLogMidway(built, 'sa');
      else await tear(built, { kind: 'request-log', sessionId: 'sa' });
      const report = await expectVerifyNames(built, [reportedKey(built, { kind: 'request-log', sessionId: 'sa' })]);
      expect(report).toContain('not valid JSON');
      const view = await cli('view', built.target, '--session', 'sa', '--out', `${built.target}-sa.html`);
      expect(view.exitCode, view.error).toBe(0);
      const readable = await readStore(built, async (store) => (await store.readRequestLog!('sa')).length);
      expect(readable).toBeGreaterThan(0);
      expect(readable).toBeLessThanOrEqual(before);
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain('MENDED the request log');
      expect(await readStore(built, async (store) => (await store.readRequestLog!('sa')).length)).toBe(readable);
      await expectMended(built, 'sa');
    }, 240_000);

    test('every key of a session but its request log evicted: a loss, not an all-clear', async () => {
      const built = await fresh(backend);
      await evictAllButRequestLog(built, 'sa');
      const report = await expectVerifyNames(built, ['session/sa/state']);
      expect(report).toContain('its folds are lost');
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain('those folds are lost');
      await expectMended(built, 'sa');
    }, 240_000);

    test('a torn evidence artifact (and usage counter): verify names it, repair sets it aside', async () => {
      const built = await fresh(backend);
      const sha256 = await putEvidence(built, 'sa', `spilled tool result ${'x'.repeat(5000)}`);
      const torn = [{ kind: 'evidence', sessionId: 'sa', sha256 }] as const;
      await tear(built, torn[0]);
      if (backend === 'sqlite') await tear(built, { kind: 'evidence-usage', sessionId: 'sa' });
      await expectVerifyNames(built, [reportedKey(built, torn[0])]);
      const repaired = await cli('repair', built.target, '--session', 'sa');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain(`SET ASIDE ${reportedKey(built, torn[0])}`);
      await expectMended(built, 'sa');
      // The spill can be written again: its key no longer holds the torn value.
      expect(await putEvidence(built, 'sa', `spilled tool result ${'x'.repeat(5000)}`)).toBe(sha256);
      expect((await cli('verify', built.target)).exitCode).toBe(0);
    }, 240_000);

    test('repair --all mends every session and a damaged blob no session names', async () => {
      const built = await fresh(backend);
      const orphan = await readStore(built, (store) => store.putBlob(`bytes no fold names ${backend}`));
      await tear(built, { kind: 'blob', sha256: orphan });
      await tear(built, { kind: 'state', sessionId: 'sb' });
      await expectVerifyNames(built, [
        reportedKey(built, { kind: 'blob', sha256: orphan }),
        reportedKey(built, { kind: 'state', sessionId: 'sb' }),
      ]);
      const dryRun = await cli('repair', built.target, '--all', '--dry-run');
      expect(dryRun.exitCode, dryRun.error).toBe(0);
      expect(dryRun.out).toContain(`WOULD SET ASIDE blob/${orphan}`);
      expect((await cli('verify', built.target)).exitCode).toBe(1);
      const repaired = await cli('repair', built.target, '--all');
      expect(repaired.exitCode, repaired.error).toBe(0);
      expect(repaired.out).toContain(`SET ASIDE blob/${orphan}`);
      expect(repaired.out).toContain('session sa: its state reads back intact');
      expect(repaired.out).toMatch(/session sb: the state could not be read/);
      await expectMended(built, 'sb');
    }, 240_000);
  });
}

test('sqlite: every key evicted reads as an empty store, a loss (exit 1), not as no store', async () => {
  const built = await fresh('sqlite');
  await evictEverything(built);
  const before = await readFile(built.target);
  const verified = await cli('verify', built.target);
  expect(verified.exitCode, verified.error).toBe(1);
  expect(verified.out).toContain('is an empty store');
  expect(verified.out).toContain('lost');
  expect(verified.out + verified.error).not.toContain('holds no pi-fold store');
  const gc = await cli('gc', built.target, '--dry-run');
  expect(gc.error).toContain('is an empty store');
  expect(await readFile(built.target)).toEqual(before);
}, 240_000);

/** How repair names what it set aside: the same key verify uses (SQLite) or the record's path (fs). */
function reportedKeyAsRepairNames(built: BuiltStore, thing: Parameters<typeof reportedKey>[1]): string {
  if (thing.kind === 'fold') return `session/${thing.sessionId}/fold/${thing.foldId}`;
  return reportedKey(built, thing);
}
