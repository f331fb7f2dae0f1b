import { REPAIR_HELP } from './command-help.ts';
import { optionFlag, optionText } from './command-options.ts';
import { type CliCommand, type CommandOutput, EXIT } from './command-table.ts';
import { openTargetOrExplain } from './open-store-target.ts';
import { assertSessionHeld } from './session-presence.ts';
import { type FullRepairReport, repairSession } from './session-repair.ts';
import { type BlobRepairReport, repairDamagedBlobs } from './store-blob-repair.ts';
import { unansweredLine } from './store-deadline.ts';

/**
 * `pi-fold repair <store> --session <id>`: a session whose engine state cannot be read (torn,
 * tampered, unknown version) or is gone is rebuilt from the fold records and blobs the store
 * verifies, so it opens again with every verified fold; an intact state that lists folds the
 * store cannot give back keeps everything else and names those as lost. A sound state is left
 * alone; `--dry-run` reports what would be rebuilt and writes nothing.
 */
export const repairCommand: CliCommand = {
  ...REPAIR_HELP,
  async run(parsed, output) {
    const [target, ...extra] = parsed.positional;
    const sessionId = optionText(parsed, 'session');
    const all = optionFlag(parsed, 'all');
    if (target === undefined || extra.length > 0 || (sessionId === undefined) === !all) {
      const why =
        target !== undefined && extra.length === 0
          ? '--session <id> names the session to repair, or --all repairs every session and the blobs none names'
          : 'give exactly one store';
      output.error(`pi-fold repair: ${why}\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    const dryRun = optionFlag(parsed, 'dry-run');
    const opened = await openTargetOrExplain(
      'repair',
      target,
      parsed.options,
      dryRun ? 'read-only' : 'read-write',
      output,
    );
    if ('exitCode' in opened) return opened.exitCode;
    const reports: FullRepairReport[] = [];
    let blobs: BlobRepairReport | undefined;
    try {
      if (sessionId !== undefined) {
        const foldIds = await opened.maintenance.foldIdsOf(sessionId);
        try {
          await assertSessionHeld(opened.store, sessionId, foldIds.length);
        } catch (error) {
          output.error(`pi-fold repair: ${(error as Error).message}; nothing written`);
          return EXIT.problemsFound;
        }
        reports.push(await repairSession(opened.store, opened.maintenance, sessionId, { dryRun }));
      } else {
        const sessions = [...((await opened.store.listSessions?.()) ?? [])].sort();
        for (const id of sessions) reports.push(await repairSession(opened.store, opened.maintenance, id, { dryRun }));
        blobs = await repairDamagedBlobs(opened.store, opened.maintenance, await opened.audit(), { dryRun });
      }
    } catch (error) {
      const late = unansweredLine('repair', target, error, 'stopped');
      output.error(late ?? `pi-fold repair: stopped: ${(error as Error).message}`);
      return late === undefined ? EXIT.problemsFound : EXIT.noAnswer;
    } finally {
      await opened.store.dispose?.();
    }
    if (optionFlag(parsed, 'json'))
      output.out(
        JSON.stringify(
          { store: target, kind: opened.kind, ...(all ? { sessions: reports, blobs } : reports[0]) },
          null,
          2,
        ),
      );
    else {
      for (const report of reports) printRepair(output, report, dryRun);
      if (blobs !== undefined) printBlobs(output, blobs, dryRun);
    }
    return EXIT.ok;
  },
};

function printBlobs(output: CommandOutput, report: BlobRepairReport, dryRun: boolean): void {
  for (const item of report.setAside)
    output.out(
      `${dryRun ? 'WOULD SET ASIDE' : 'SET ASIDE'} ${item.what}${item.where === undefined ? '' : ` → ${item.where}`}: ${item.reason}`,
    );
  for (const sha256 of report.restoredBlobs)
    output.out(`${dryRun ? 'WOULD RESTORE' : 'RESTORED'} blob ${sha256} from an intact copy the store holds`);
  output.out(
    `store: ${report.setAside.length} damaged blob(s) no session's repair reached${dryRun ? '; nothing was changed (dry run)' : ''}`,
  );
}

function printRepair(output: CommandOutput, report: FullRepairReport, dryRun: boolean): void {
  if (!report.repaired) {
    output.out(
      `session ${report.sessionId}: its state reads back intact, every fold it lists verifies, and nothing filed under it is damaged; nothing to repair`,
    );
    return;
  }
  const would = (done: string, wouldDo: string) => (dryRun ? wouldDo : done);
  for (const sha256 of report.restoredBlobs)
    output.out(`${would('RESTORED', 'WOULD RESTORE')} blob ${sha256} from an intact copy the store holds`);
  for (const item of report.setAside)
    output.out(
      `${would('SET ASIDE', 'WOULD SET ASIDE')} ${item.what}${item.where === undefined ? '' : ` → ${item.where}`}: ${item.reason}`,
    );
  const log = report.requestLog;
  if (log !== undefined)
    output.out(
      `${would('MENDED', 'WOULD MEND')} the request log: ${log.damaged} damaged line(s) or chunk(s) left out${log.salvaged > 0 ? ` (${log.salvaged} whole row(s) found after a tear kept)` : ''}, ${log.kept} row(s) kept`,
    );
  if (report.stateProblem === undefined) {
    if (dryRun) output.out('nothing was changed (dry run)');
    return;
  }
  output.out(`session ${report.sessionId}: ${report.stateProblem}`);
  for (const fold of report.unrecoverable) output.out(`NOT RECOVERED ${fold.foldId}: ${fold.reason}`);
  const verb = dryRun ? 'would rebuild' : 'rebuilt';
  const afresh = report.stateIntact
    ? '; the folds left out are named in it as lost, and everything else it held is kept'
    : '; pending marks, pins and notices start afresh';
  output.out(
    `${verb} the state from ${report.recovered.length} verified fold(s)${report.unrecoverable.length > 0 ? `; ${report.unrecoverable.length} fold(s) left out` : ''}${afresh}${dryRun ? '; nothing was changed (dry run)' : ''}`,
  );
}
