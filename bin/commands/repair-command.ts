import { readdir } from 'node:fs/promises';
import { isTempName } from '../../adapters/storage-fs/atomic-files.ts';
import type { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import type { KeyvFoldStore } from '../../adapters/storage-keyv/keyv-fold-store.ts';
import { rebuildSessionState, type SessionRepairReport } from '../../application/recovery/rebuild-session-state.ts';
import { REPAIR_HELP } from './command-help.ts';
import { optionFlag, optionText } from './command-options.ts';
import { type CliCommand, type CommandOutput, EXIT } from './command-table.ts';
import { type OpenedStoreTarget, openTargetOrExplain } from './open-store-target.ts';
import { assertSessionHeld } from './session-presence.ts';
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
    if (target === undefined || extra.length > 0 || sessionId === undefined) {
      const why = sessionId === undefined ? '--session <id> names the session to repair' : 'give exactly one store';
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
    let report: SessionRepairReport;
    try {
      const foldIds = await sessionFoldIds(opened, sessionId);
      try {
        await assertSessionHeld(opened.store, sessionId, foldIds.length);
      } catch (error) {
        output.error(`pi-fold repair: ${(error as Error).message}; nothing written`);
        return EXIT.problemsFound;
      }
      report = await rebuildSessionState(opened.store, sessionId, foldIds, { dryRun });
    } catch (error) {
      const late = unansweredLine('repair', target, error, 'nothing written');
      output.error(late ?? `pi-fold repair: stopped, nothing written: ${(error as Error).message}`);
      return late === undefined ? EXIT.problemsFound : EXIT.noAnswer;
    } finally {
      await opened.store.dispose?.();
    }
    if (optionFlag(parsed, 'json'))
      output.out(JSON.stringify({ store: target, kind: opened.kind, ...report }, null, 2));
    else printRepair(output, report, dryRun);
    return EXIT.ok;
  },
};

/**
 * The ids of every fold record filed under the session, read from the keys alone: a damaged
 * record must still be named (as unrecoverable), so listing cannot go through `listFolds`.
 */
async function sessionFoldIds(opened: OpenedStoreTarget, sessionId: string): Promise<string[]> {
  if (opened.kind === 'fs') {
    const directory = (opened.store as FsFoldStore).layout.foldsDirectory(sessionId);
    const names = await readdir(directory).catch((error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' ? [] : Promise.reject(error),
    );
    return names
      .filter((name) => name.endsWith('.json') && !isTempName(name))
      .map((name) => name.slice(0, -'.json'.length));
  }
  const prefix = `session/${sessionId}/fold/`;
  const ids: string[] = [];
  for await (const [key] of (opened.store as KeyvFoldStore).connection.entries('list fold records of')) {
    const at = key.indexOf(prefix);
    if (at >= 0) ids.push(key.slice(at + prefix.length));
  }
  return ids;
}

function printRepair(output: CommandOutput, report: SessionRepairReport, dryRun: boolean): void {
  if (report.stateProblem === undefined) {
    output.out(
      `session ${report.sessionId}: its state reads back intact and every fold it lists verifies; nothing to repair`,
    );
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
