import type { EngineCountersV1 } from '../../ports/fold-records.ts';
import type { LedgerRow } from '../../ports/projection-sink.port.ts';

export interface DemoTotals {
  requests: number;
  commits: number;
  foldsLanded: number;
  peak: number;
  occupancySum: number;
  promptTokens: number;
  cacheRead: number;
  byCause: Map<string, number>;
}

const BAR_WIDTH = 30;

/** A bar of the budget with the band marked: `|` at maxTarget (0.80), `:` at minTarget (0.40). */
function bar(share: number): string {
  const filled = Math.round(Math.min(1, share) * BAR_WIDTH);
  let text = '';
  for (let cell = 0; cell < BAR_WIDTH; cell += 1) {
    if (cell === Math.round(0.8 * BAR_WIDTH)) text += '|';
    else if (cell === Math.round(0.4 * BAR_WIDTH)) text += ':';
    else text += cell < filled ? '█' : '·';
  }
  return text;
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1).padStart(5)}%`;
}

export function formatRequestLine(row: LedgerRow, promptTokens: number, cacheRead: number): string {
  const occupancy = row.estimatedTokens / row.budgetTokens;
  const what =
    row.foldsLanded > 0
      ? `COMMIT ${row.foldsLanded} folds at ${percent(row.preCommitTokens / row.budgetTokens).trim()} → ${percent(occupancy).trim()}`
      : row.causes.length > 0
        ? `rewrite (${row.causes.join('+')})`
        : `append +${row.appendedChars} chars`;
  const cache = promptTokens === 0 ? 0 : cacheRead / promptTokens;
  return `#${String(row.request).padStart(4)} ${bar(occupancy)} ${percent(occupancy)}  ${what.padEnd(40)} cache ${(cache * 100).toFixed(0).padStart(3)}%`;
}

export function formatTotals(totals: DemoTotals, counters: EngineCountersV1): string {
  const causes = [...totals.byCause].map(([cause, count]) => `${cause} ${count}`).join(', ') || 'none';
  return [
    '',
    'totals',
    `  requests            ${totals.requests} (pure appends ${counters.pureAppends}, rewrites ${counters.rewrites}: ${causes}; unattributed ${counters.unattributedRewrites})`,
    `  commits             ${totals.commits}, landing ${totals.foldsLanded} folds (${(totals.foldsLanded / Math.max(1, totals.commits)).toFixed(1)} per commit)`,
    `  occupancy           peak ${percent(totals.peak).trim()} of the budget, mean ${percent(totals.occupancySum / Math.max(1, totals.requests)).trim()}`,
    `  prompt tokens       ${totals.promptTokens.toLocaleString('en-US')} sent, ${totals.cacheRead.toLocaleString('en-US')} from the prefix cache (${((totals.cacheRead / Math.max(1, totals.promptTokens)) * 100).toFixed(1)}%)`,
  ].join('\n');
}
