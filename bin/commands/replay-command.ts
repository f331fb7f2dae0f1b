import { join } from 'node:path';
import { FoldError } from '../../core/fold-error.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { parseArmName } from '../../lab/arms/arm-profile.ts';
import { findInstalledPi } from '../../lab/peers/pi-host-lines.ts';
import { clearKeptStores, keptStoresDirectory, writeKeptStoreViews } from '../../lab/replay/kept-store-views.ts';
import { type ReplayOptions, replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { formatArmTable } from '../../lab/report/arm-table.ts';
import { formatNeedsTable } from '../../lab/report/needs-table.ts';
import { stableSummaryJson, writeLabReports } from '../../lab/report/report-files.ts';
import { REPLAY_HELP } from './command-help.ts';
import { optionFlag, optionText } from './command-options.ts';
import { type CliCommand, EXIT } from './command-table.ts';
import { assertWritableDirectory } from './output-paths.ts';

/**
 * `pi-fold replay <file>`: what a recorded Pi, Claude Code, Codex or chat-trajectory session would have sent and cost
 * under no management, Pi's native compaction and folding. The table and notes go to stdout,
 * progress to stderr; `--out` also writes the CSV, JSON summaries and the HTML report.
 */
export const replayCommand: CliCommand = {
  ...REPLAY_HELP,
  async run(parsed, output) {
    let options: ReplayOptions;
    let outDirectory: string | undefined;
    let json = false;
    try {
      const [path, ...extra] = parsed.positional;
      if (path === undefined || extra.length > 0) throw new Error('give exactly one session file');
      const text = (name: string): string | undefined => optionText(parsed, name);
      const priceList = text('price-list');
      if (priceList !== undefined && PRICE_LISTS[priceList] === undefined)
        throw new Error(`unknown price list "${priceList}" (known: ${Object.keys(PRICE_LISTS).join(', ')})`);
      // Without --budget/--cap/--price-list the replay runs at the recorded model's window and
      // prices (lab/replay/replay-window.ts).
      const budget = wholeNumber('budget', text('budget'), 1_000, 'tokens');
      const cap = wholeNumber('cap', text('cap'), 1_000, 'tokens');
      const arms = text('arms');
      const maxRequests = wholeNumber('max-requests', text('max-requests'), 1);
      const clock = text('clock');
      if (clock !== undefined && clock !== 'recorded' && clock !== 'uniform')
        throw new Error(`--clock must be recorded or uniform, not "${clock}"`);
      const calibration = text('calibration');
      if (calibration !== undefined && calibration !== 'recorded' && calibration !== 'off')
        throw new Error(`--calibration must be recorded or off, not "${calibration}"`);
      options = {
        path,
        ...(arms === undefined ? {} : { arms: arms.split(',').map((name) => parseArmName(name.trim())) }),
        ...(priceList === undefined ? {} : { priceList }),
        ...(budget === undefined ? {} : { descriptorTokens: budget }),
        ...(cap === undefined ? {} : { providerCapTokens: cap }),
        ...(maxRequests === undefined ? {} : { maxRequests }),
        ...(clock === undefined ? {} : { clock }),
        ...(calibration === undefined ? {} : { calibration }),
      };
      outDirectory = text('out');
      // Checked before any arm runs: a replay can take minutes, its reports are written last.
      if (outDirectory !== undefined) assertWritableDirectory('--out', outDirectory);
      json = optionFlag(parsed, 'json');
    } catch (error) {
      output.error(`pi-fold replay: ${(error as Error).message}\nusage: ${this.usage}`);
      return EXIT.usage;
    }
    let report: Awaited<ReturnType<typeof replayTranscript>>;
    try {
      if (outDirectory !== undefined) {
        // The fold arms' stores are kept for `pi-fold view`, replacing an earlier run's.
        await clearKeptStores(outDirectory);
        options = { ...options, keepFoldStoresIn: keptStoresDirectory(outDirectory) };
      }
      report = await replayTranscript(options);
    } catch (error) {
      // An unreadable or unknown file is the user's input, not a crash: say what it is.
      if (FoldError.isInstance(error)) {
        output.error(`pi-fold replay: ${error.message}`);
        return EXIT.usage;
      }
      throw error;
    }
    // Say which Pi drove the arms: either supported line may be installed (lab/peers/pi-host-lines.ts).
    const pi = findInstalledPi();
    const notes = [...(pi === undefined ? [] : [`ran on Pi ${pi.version} (${pi.packageName})`]), ...report.notes];
    if (json) output.out(stableSummaryJson(report.run, notes).trimEnd());
    else {
      // Cost and loss first: what each arm paid and what it lost of what the model needed.
      const needsTable = formatNeedsTable(report.run);
      if (needsTable.length > 0) output.out(`${needsTable}\n`);
      output.out(formatArmTable(report.run));
      output.out('');
      for (const note of notes) output.out(`note: ${note}`);
      for (const [name, value] of Object.entries(report.measurements)) output.out(`measured: ${name}: ${value}`);
    }
    if (outDirectory !== undefined) {
      const viewerLinks = await writeKeptStoreViews(outDirectory, 'replay', report.run.settings.priceList);
      const paths = await writeLabReports(report.run, outDirectory, {
        title: `pi-fold replay of ${report.session.path}`,
        notes,
        measurements: report.measurements,
        baseName: 'replay',
        viewerLinks,
      });
      output.error(
        `reports: ${paths.html}\n         ${paths.summary}\n         ${paths.csv}\n         ${paths.timings}${viewerLinks.map((link) => `\n         ${join(outDirectory, link.href)} (pi-fold view of the ${link.arm} arm's store, kept in ${join(keptStoresDirectory(outDirectory), link.arm)})`).join('')}`,
      );
    } else if (!json)
      output.out('(add --out <dir> for the per-request CSV, the JSON summary and the HTML report with charts)');
    const mismatched = report.arms.some((arm) => arm.result.failure !== undefined);
    return mismatched ? EXIT.problemsFound : EXIT.ok;
  },
};

/** A whole-number option (`_` and `,` allowed as separators), at least `minimum`; `unit` names what it counts. */
function wholeNumber(name: string, text: string | undefined, minimum: number, unit?: string): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text.replace(/[_,]/g, ''));
  if (!Number.isInteger(value) || value < minimum)
    throw new Error(
      `--${name} must be a whole number${unit === undefined ? '' : ` of ${unit}`} of at least ${minimum}, got "${text}"`,
    );
  return value;
}
