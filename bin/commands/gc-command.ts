import {
  collectGarbage,
  DEFAULT_GC_GRACE_MS,
  type GarbageCollectionReport,
} from '../../application/retention/store-gc.ts';
import { GC_HELP } from './command-help.ts';
import { optionFlag, optionText } from './command-options.ts';
import { type CliCommand, type CommandOutput, EXIT } from './command-table.ts';
import { openTargetOrExplain } from './open-store-target.ts';
import { unansweredLine } from './store-deadline.ts';

/**
 * `pi-fold gc <store>`: delete blobs that no fold record or engine state of any session
 * references. Never deletes a referenced blob; keeps unreferenced blobs written within the
 * grace period (a writer may be between putting a fold's blobs and its record). `--dry-run`
 * reports what would be freed and changes nothing.
 */
export const gcCommand: CliCommand = {
  ...GC_HELP,
  async run(parsed, output) {
    const [target, ...extra] = parsed.positional;
    if (target === undefined || extra.length > 0) {
      output.error(`pi-fold gc: give exactly one store\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    const graceOption = optionText(parsed, 'grace-minutes');
    const graceMinutes = graceOption === undefined ? DEFAULT_GC_GRACE_MS / 60_000 : Number(graceOption);
    if (!Number.isFinite(graceMinutes) || graceMinutes < 0) {
      output.error(`pi-fold gc: --grace-minutes must be a non-negative number, got ${String(graceOption)}`);
      return EXIT.usage;
    }
    const dryRun = optionFlag(parsed, 'dry-run');
    // A dry run opens the backend read-only; either way a target that is not a store is refused unwritten.
    const opened = await openTargetOrExplain('gc', target, parsed.options, dryRun ? 'read-only' : 'read-write', output);
    if ('exitCode' in opened) return opened.exitCode;
    let report: GarbageCollectionReport;
    try {
      report = await collectGarbage(opened.store, {
        dryRun,
        graceMs: graceMinutes * 60_000,
        onProgress: (progress) => {
          // Big stores only: a small store finishes before progress would mean anything.
          if (progress.done > 0 && (progress.phase !== 'sessions' || progress.done % 100 === 0))
            output.error(
              `pi-fold gc: ${progress.phase} ${progress.done}${progress.total === undefined ? '' : `/${progress.total}`}`,
            );
        },
      });
    } catch (error) {
      const late = unansweredLine('gc', target, error, 'nothing more deleted');
      output.error(late ?? `pi-fold gc: stopped, nothing more deleted: ${(error as Error).message}`);
      return late === undefined ? EXIT.problemsFound : EXIT.noAnswer;
    } finally {
      await opened.store.dispose?.();
    }
    if (optionFlag(parsed, 'json'))
      output.out(JSON.stringify({ store: target, kind: opened.kind, ...report }, null, 2));
    else printSummary(output, target, opened.kind, report);
    return EXIT.ok;
  },
};

function printSummary(output: CommandOutput, target: string, kind: string, report: GarbageCollectionReport): void {
  const { scanned, collectable, recent, deleted, refreshed } = report;
  output.out(
    `${kind} store ${target}: ${report.sessions} session(s), ${report.folds} fold record(s), ${report.referencedBlobs} referenced blob(s); ${scanned.count} blob(s) scanned (${formatBytes(scanned.bytes)})`,
  );
  if (report.dryRun)
    output.out(
      `dry run: would free ${collectable.count} blob(s), ${collectable.bytes} bytes (${formatBytes(collectable.bytes)}); nothing was changed`,
    );
  else
    output.out(
      `freed ${deleted.count} blob(s), ${deleted.bytes} bytes (${formatBytes(deleted.bytes)})${refreshed.count > 0 ? `; kept ${refreshed.count} a writer re-put during the run` : ''}`,
    );
  if (recent.count > 0)
    output.out(
      `kept ${recent.count} unreferenced blob(s), ${recent.bytes} bytes, written within the last ${report.graceMs / 60_000} minute(s) (grace period for concurrent writers)`,
    );
  for (const damaged of report.damaged)
    output.out(
      `skipped damaged ${damaged.key} of session ${damaged.sessionId} (every blob it names is kept): ${damaged.message}`,
    );
  if (report.damaged.length > 0)
    output.out(
      `${report.damaged.length} damaged record(s) or state(s) walked around; \`pi-fold verify\` names them and \`pi-fold repair <store> --session <id>\` mends them`,
    );
  output.out(`took ${report.durationMs} ms`);
}

function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
