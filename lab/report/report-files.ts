import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stableStringify } from '../../core/util/hashing.ts';
import { armTimings, summarizeArm } from './arm-summary.ts';
import { formatArmTable } from './arm-table.ts';
import { summarizeBound } from './bound-line.ts';
import { costRecoveryFront } from './cost-front.ts';
import { COST_SPLIT_PARTS, priceListOf, requestCostSplit } from './cost-split.ts';
import { renderHtmlReport } from './html-report.ts';
import type { LabRun, RequestRow } from './lab-records.ts';
import { costLossLines } from './needs-table.ts';
import type { ViewerLink } from './report-headline.ts';

/** Extra words and figures for a report beyond the run itself. */
export interface LabReportOptions {
  /** Heading of the HTML report. @default 'pi-fold lab' */
  readonly title?: string;
  /** Deterministic remarks (malformed lines, gaps, how summary calls are counted); kept in the stable summary. */
  readonly notes?: readonly string[];
  /** Machine-dependent figures (wall time, peak memory); written only to the timings file and the HTML. */
  readonly measurements?: Readonly<Record<string, string | number>>;
  /** File name stem. @default 'lab' */
  readonly baseName?: string;
  /** Viewer pages of the fold stores the run kept, linked from the HTML report. @default none */
  readonly viewerLinks?: readonly ViewerLink[];
}

/** Where `writeLabReports` put each file. */
export interface LabReportPaths {
  readonly csv: string;
  /** Stable bytes for the same run: no timings. */
  readonly summary: string;
  /** Timings and measurements: differ between runs by nature. */
  readonly timings: string;
  readonly html: string;
  /** One line per arm: its cost and where each dollar went. */
  readonly costSplit: string;
}

const CSV_COLUMNS = [
  'arm',
  'index',
  'purpose',
  'event',
  'promptTokens',
  'cacheRead',
  'freshInput',
  'output',
  'costUsd',
  'longContext',
  'rejected',
  'hookMs',
] as const satisfies readonly (keyof RequestRow)[];

/** The split's column names: `appended fresh input` → `usdAppendedFreshInput`. */
const SPLIT_COLUMNS = COST_SPLIT_PARTS.map(
  ({ label }) => `usd${label.replace(/(^|[\s-])(\w)/g, (_match, _space, letter: string) => letter.toUpperCase())}`,
);

function quote(value: unknown): string {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const micro = (dollars: number): string => (Math.round(dollars * 1e6) / 1e6).toString();

/** One CSV line per request of every arm, with a header line; the split columns add up to `costUsd`. */
export function requestRowsCsv(run: LabRun): string {
  const priceList = priceListOf(run.settings);
  const lines = [[...CSV_COLUMNS, 'cacheWrite', ...SPLIT_COLUMNS].join(',')];
  for (const arm of run.arms) {
    for (const row of arm.rows) {
      const split = requestCostSplit(row, priceList);
      lines.push(
        [
          ...CSV_COLUMNS.map((column) => quote(row[column])),
          String(row.cacheWrite ?? 0),
          ...COST_SPLIT_PARTS.map(({ key }) => micro(split[key])),
        ].join(','),
      );
    }
  }
  return `${lines.join('\n')}\n`;
}

/** One CSV line per arm: cost, the split, recovery reads and their dollars, and whether it is on the cost/recovery front. */
export function costSplitCsv(run: LabRun): string {
  const priceList = priceListOf(run.settings);
  const summaries = run.arms.map((arm) => summarizeArm(arm, priceList));
  const front = costRecoveryFront(summaries, run.settings.providerCapTokens);
  const lines = [
    [
      'arm',
      'costUsd',
      ...SPLIT_COLUMNS,
      'recoveryReads',
      'recoveryRequests',
      'recoveryTokens',
      'recoveryUsd',
      'questionsLost',
      'onFront',
      'finished',
    ].join(','),
  ];
  for (const [position, summary] of summaries.entries()) {
    const point = front.points[position]!;
    lines.push(
      [
        quote(summary.arm),
        micro(summary.costUsd),
        ...COST_SPLIT_PARTS.map(({ key }) => micro(summary.costSplit[key])),
        summary.recovery.reads,
        summary.recovery.requests,
        summary.recovery.tokens,
        micro(summary.recovery.usd),
        point.lost,
        point.onFront,
        point.finished,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The summary whose bytes depend only on the run's settings and rows: keys sorted, no timings. */
export function stableSummaryJson(run: LabRun, notes: readonly string[] = []): string {
  const priceList = priceListOf(run.settings);
  const arms = run.arms.map((arm) => summarizeArm(arm, priceList));
  const front = costRecoveryFront(arms, run.settings.providerCapTokens);
  const document = {
    format: 'pi-fold-lab-summary',
    version: 1,
    settings: run.settings,
    ...(run.reference === undefined ? {} : { reference: run.reference }),
    notes,
    arms,
    ...(run.bound === undefined ? {} : { bound: summarizeBound(run.bound, arms) }),
    ...(run.needs === undefined
      ? {}
      : { needs: { distinctPieces: run.needs.distinctPieces, rows: costLossLines(run) } }),
    costRecoveryFront: front,
  };
  return `${JSON.stringify(JSON.parse(stableStringify(document)), null, 2)}\n`;
}

/**
 * Write the per-request CSV, the per-arm cost-split CSV, the stable JSON summary, the timings JSON and the HTML report
 * into `outDirectory` (created if needed); returns their paths.
 */
export async function writeLabReports(
  run: LabRun,
  outDirectory: string,
  options: LabReportOptions = {},
): Promise<LabReportPaths> {
  const base = options.baseName ?? 'lab';
  await mkdir(outDirectory, { recursive: true });
  const paths: LabReportPaths = {
    csv: join(outDirectory, `${base}-requests.csv`),
    summary: join(outDirectory, `${base}-summary.json`),
    timings: join(outDirectory, `${base}-timings.json`),
    html: join(outDirectory, `${base}-report.html`),
    costSplit: join(outDirectory, `${base}-cost-split.csv`),
  };
  const notes = options.notes ?? [];
  const measurements = options.measurements ?? {};
  const table = formatArmTable(run);
  const timings = { format: 'pi-fold-lab-timings', version: 1, arms: run.arms.map(armTimings), measurements };
  await writeFile(paths.csv, requestRowsCsv(run));
  await writeFile(paths.costSplit, costSplitCsv(run));
  await writeFile(paths.summary, stableSummaryJson(run, notes));
  await writeFile(paths.timings, `${JSON.stringify(timings, null, 2)}\n`);
  await writeFile(
    paths.html,
    renderHtmlReport(run, table, {
      title: options.title ?? 'pi-fold lab',
      notes,
      measurements,
      ...(options.viewerLinks === undefined ? {} : { viewerLinks: options.viewerLinks }),
    }),
  );
  return paths;
}
