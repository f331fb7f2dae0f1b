import type { StoreAuditReport } from '../../adapters/backends/storage-shared/store-audit.ts';
import { auditSessionGraphs } from '../../application/recovery/audit-session-graphs.ts';
import { FoldError } from '../../core/fold-error.ts';
import { VERIFY_HELP } from './command-help.ts';
import { optionFlag } from './command-options.ts';
import { type CliCommand, EXIT } from './command-table.ts';
import { explainNotOpened, openStoreTarget, storeTargetOptionsOf } from './open-store-target.ts';
import { isPackageMissing } from './store-packages.ts';

/**
 * `pi-fold verify <store>`: re-hash every blob, record, state and artifact of a store, follow
 * what each session needs (state → records → nested folds → blobs), and print each problem by
 * key, with its session and what it costs. Exits 1 when anything is wrong, so it can gate a backup or CI.
 */
export const verifyCommand: CliCommand = {
  ...VERIFY_HELP,
  async run(parsed, output) {
    const [target, ...extra] = parsed.positional;
    if (target === undefined || extra.length > 0) {
      output.error(`pi-fold verify: give exactly one store\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    let kind: string;
    let report: StoreAuditReport;
    try {
      // Read-only at the driver: verifying a file that is not a store must not change it.
      const opened = await openStoreTarget(target, storeTargetOptionsOf(parsed.options), 'read-only');
      kind = opened.kind;
      try {
        report = await opened.audit();
        // Each object sound on its own is not enough: what each session needs must be there too.
        const graph = await auditSessionGraphs(opened.store);
        report.problems.push(...graph.problems);
        report.notes.push(...graph.notes, ...opened.warnings);
      } finally {
        await opened.store.dispose?.();
      }
    } catch (error) {
      if (isPackageMissing(error)) throw error;
      // Every key gone is a finding about the store, not a store that cannot be opened.
      if (FoldError.isInstance(error) && error.details?.emptyStore === true) {
        output.out(`PROBLEM ${error.code} (store): ${error.message}`);
        return EXIT.problemsFound;
      }
      return explainNotOpened('verify', target, error, output);
    }
    if (optionFlag(parsed, 'json')) {
      output.out(JSON.stringify({ store: target, kind, ...report }, null, 2));
    } else {
      for (const problem of report.problems) output.out(`PROBLEM ${problem.code} ${problem.key}: ${problem.message}`);
      for (const note of report.notes) output.out(`note: ${note}`);
      const { blobs, folds, states, evidence } = report.checked;
      output.out(
        `${kind} store ${target}: ${blobs} blobs, ${folds} fold records, ${states} states, ${evidence} artifacts verified; ${report.problems.length} problem(s)`,
      );
    }
    return report.problems.length === 0 ? EXIT.ok : EXIT.problemsFound;
  },
};
