import { NEED_KINDS } from '../replay/needs/need-pieces.ts';
import type { NeedCounts, NeedsRow } from '../replay/needs/needs-rows.ts';
import { summarizeArm } from './arm-summary.ts';
import { priceListOf } from './cost-split.ts';
import type { LabRun } from './lab-records.ts';

/** One row of the cost-and-loss table, as every report prints it. */
export interface CostLossLine {
  readonly name: string;
  readonly source: NeedsRow['source'];
  /** The arm's bill (absent for the recording's own windows). */
  readonly costUsd?: number;
  /** The bill with the requests its one-call-away and re-obtainable needs take. */
  readonly costWithRecoveryUsd?: number;
  readonly counts: NeedCounts;
  readonly byKind: NeedsRow['byKind'];
  readonly recovery?: NeedsRow['recovery'];
}

/** The rows of `run.needs` with each arm's cost beside them; empty for a run that scored no needs. */
export function costLossLines(run: LabRun): CostLossLine[] {
  if (run.needs === undefined) return [];
  const priceList = priceListOf(run.settings);
  return run.needs.rows.map((row) => {
    const arm = run.arms.find((result) => result.arm === row.name);
    const costUsd = arm === undefined ? undefined : summarizeArm(arm, priceList).costUsd;
    // Micro-dollars, as every cost of the stable summary: the same run gives the same bytes.
    return {
      name: row.name,
      source: row.source,
      ...(costUsd === undefined
        ? {}
        : { costUsd: micro(costUsd), costWithRecoveryUsd: micro(costUsd + (row.recovery?.usd ?? 0)) }),
      counts: row.counts,
      byKind: row.byKind,
      ...(row.recovery === undefined ? {} : { recovery: { ...row.recovery, usd: micro(row.recovery.usd) } }),
    };
  });
}

const micro = (dollars: number): number => Math.round(dollars * 1e6) / 1e6;
/** A cost as a table cell: dollars to the cent, a dash where the line has no bill. */
export const dollars = (value: number | undefined): string => (value === undefined ? '—' : `$${value.toFixed(2)}`);
const percentOf = (part: number, whole: number): string =>
  whole === 0 ? '' : ` (${((100 * part) / whole).toFixed(1)}%)`;

/** The columns of a line's need counts, as every cost-and-loss table puts them after the costs. */
export const NEED_COUNT_HEADER = [
  'needs lost',
  'needs',
  'visible',
  'one call away',
  're-obtainable',
  'searchable',
  'not reached',
] as const;

/**
 * A line's need counts as cells under `NEED_COUNT_HEADER`; `withShares` adds what part of the
 * needs were lost or merely searchable.
 */
export function needCountCells(counts: NeedCounts, withShares: boolean): string[] {
  const share = (part: number): string => (withShares ? percentOf(part, counts.needs) : '');
  return [
    `${counts.lost}${share(counts.lost)}`,
    String(counts.needs),
    String(counts.visible),
    String(counts.oneCallAway),
    String(counts.reobtainable),
    `${counts.searchable}${share(counts.searchable)}`,
    String(counts.notReached),
  ];
}

/** A line's needs of each kind as cells, one per `NEED_KINDS`: lost / needs (searchable). */
export function kindCells(line: CostLossLine): string[] {
  return NEED_KINDS.map((kind) => {
    const counts = line.byKind[kind];
    return `${counts.lost} / ${counts.needs} (${counts.searchable})`;
  });
}

/**
 * The table a replay leads with: each arm's cost, then what it lost of what the model needed,
 * then how the rest stood (docs/lab-replay-and-reports.md, "Needs lost").
 */
export function formatNeedsTable(run: LabRun): string {
  const lines = costLossLines(run);
  if (lines.length === 0 || run.needs === undefined) return '';
  const native = lines.find((line) => line.name === 'native');
  const ratio = (value: number | undefined, base: number | undefined): string =>
    value === undefined || base === undefined || base === 0 ? '—' : `${(value / base).toFixed(2)}×`;
  const header = ['arm', 'cost', '÷ native', 'with recovery', '÷ native', ...NEED_COUNT_HEADER];
  const rows = lines.map((line) => [
    line.name,
    dollars(line.costUsd),
    ratio(line.costUsd, native?.costUsd),
    dollars(line.costWithRecoveryUsd),
    ratio(line.costWithRecoveryUsd, native?.costWithRecoveryUsd),
    ...needCountCells(line.counts, true),
  ]);
  const kindHeader = ['arm', ...NEED_KINDS.map((kind) => `${kind} lost / needs (searchable)`)];
  const kindRows = lines.map((line) => [line.name, ...kindCells(line)]);
  const recovery = lines
    .filter((line) => line.recovery !== undefined && line.recovery.calls > 0)
    .map(
      (line) =>
        `  ${line.name}: ${line.recovery!.calls} call(s) in ${line.recovery!.requests} extra request(s), ${line.recovery!.tokens.toLocaleString('en-US')} tokens read back, ${dollars(line.recovery!.usd)}`,
    );
  return [
    `cost and loss: ${run.needs.rows[0]?.counts.needs ?? 0} needs (later uses of an exact piece a tool gave: ${run.needs.distinctPieces} distinct pieces)`,
    ...aligned([header, ...rows]),
    '',
    ...aligned([kindHeader, ...kindRows]),
    ...(recovery.length === 0
      ? []
      : ['', 'recovery billed (a peek of a named fold, a re-read of an unchanged file):', ...recovery]),
  ].join('\n');
}

function aligned(table: readonly (readonly string[])[]): string[] {
  const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  return table.map((row) =>
    row
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join(' | ')
      .trimEnd(),
  );
}
