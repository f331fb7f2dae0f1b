import { join } from 'node:path';
import { auditFsStore } from '../../adapters/backends/storage-fs/fs-store-audit.ts';
import { DOCTOR_HELP } from './command-help.ts';
import { optionFlag, optionText } from './command-options.ts';
import { type CliCommand, EXIT } from './command-table.ts';
import {
  checkNode,
  checkPi,
  checkPiFoldSettings,
  checkPiSettings,
  defaultPlaces,
  type Finding,
  findSessionStores,
} from './doctor-checks.ts';

/**
 * `pi-fold doctor`: checks a Pi install for what stops pi-fold from loading or working, and
 * says what to do about each finding. Reads files only; nothing is written or installed.
 * Exits 1 when any finding is a problem, so a setup script can gate on it.
 */
export const doctorCommand: CliCommand = {
  ...DOCTOR_HELP,
  async run(parsed, output) {
    if (parsed.positional.length > 0) {
      output.error(`pi-fold doctor: takes no arguments, got ${parsed.positional.join(' ')}\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    const places = defaultPlaces();
    const agentDirectory = optionText(parsed, 'agent-dir') ?? places.agentDirectory;
    const findings: Finding[] = [
      checkNode(),
      checkPi(places.path),
      ...checkPiSettings(join(agentDirectory, 'settings.json'), 'Pi settings'),
      ...checkPiSettings(join(places.projectDirectory, '.pi', 'settings.json'), 'project settings').filter(
        (finding) => finding.level !== 'note',
      ),
      checkPiFoldSettings(places.piFoldSettings),
      ...(await checkStores(agentDirectory)),
    ];
    if (!findings.some((finding) => finding.piFold === true))
      findings.push({
        level: 'note',
        check: 'pi-fold in Pi',
        said: `no pi-fold is registered in ${join(agentDirectory, 'settings.json')} or the project's .pi/settings.json`,
        fix: 'install it: pi install npm:pi-fold, or an unpacked tarball (docs/install.md); pi -e <path> loads it for one run',
      });
    const problems = findings.filter((finding) => finding.level === 'problem').length;
    if (optionFlag(parsed, 'json')) output.out(JSON.stringify({ agentDirectory, problems, findings }, null, 2));
    else {
      for (const finding of findings) {
        output.out(`${LEVEL_MARK[finding.level]} ${finding.check}: ${finding.said}`);
        if (finding.fix !== undefined) output.out(`    → ${finding.fix}`);
      }
      output.out(problems === 0 ? 'no problems found' : `${problems} problem${problems === 1 ? '' : 's'} found`);
    }
    return problems === 0 ? EXIT.ok : EXIT.problemsFound;
  },
};

const LEVEL_MARK = { ok: 'ok     ', note: 'note   ', problem: 'PROBLEM' } as const;

/** The newest session store re-hashed in full (reads only); the others counted, with the command that checks them. */
async function checkStores(agentDirectory: string): Promise<Finding[]> {
  const stores = findSessionStores(agentDirectory);
  if (stores.length === 0)
    return [
      { level: 'ok', check: 'session stores', said: `no pi-fold store under ${join(agentDirectory, 'sessions')} yet` },
    ];
  const newest = stores[0]!;
  const findings: Finding[] = [];
  try {
    const report = await auditFsStore(newest);
    const { blobs, folds, states } = report.checked;
    findings.push(
      report.problems.length === 0
        ? {
            level: 'ok',
            check: 'session stores',
            said: `${newest}: ${blobs} blobs, ${folds} folds, ${states} states verified`,
          }
        : {
            level: 'problem',
            check: 'session stores',
            said: `${newest}: ${report.problems.length} problem${report.problems.length === 1 ? '' : 's'} (${report.problems[0]!.code} ${report.problems[0]!.key}${report.problems.length > 1 ? ', …' : ''})`,
            fix: `pi-fold verify ${newest} lists each; pi-fold repair ${newest} --session <id> rebuilds a session's state`,
          },
    );
  } catch (error) {
    findings.push({
      level: 'problem',
      check: 'session stores',
      said: `${newest} cannot be read: ${(error as Error).message}`,
      fix: `check the folder's permissions`,
    });
  }
  if (stores.length > 1)
    findings.push({
      level: 'note',
      check: 'session stores',
      said: `${stores.length - 1} more store${stores.length === 2 ? '' : 's'} not re-hashed here`,
      fix: `pi-fold verify <store> checks one, e.g. pi-fold verify ${stores[1]}`,
    });
  return findings;
}
