import { describeLossSteps } from '../../core/commit/policy/cache-survival.ts';
import { type ArmSummary, type ArmTimings, armTimings, summarizeArm } from './arm-summary.ts';
import { boundLines } from './bound-line.ts';
import { bytesLostLine } from './bytes-lost.ts';
import { costRecoveryFront } from './cost-front.ts';
import { costLossRows, formatCostLossTable } from './cost-loss.ts';
import { COST_SPLIT_PARTS, priceListOf } from './cost-split.ts';
import type { FoldArmSettings, LabRun } from './lab-records.ts';
import { WINDOW_PARTS } from './window-parts.ts';

interface TableMetric {
  readonly label: string;
  readonly value: (summary: ArmSummary, timings: ArmTimings) => number | undefined;
  readonly format: (value: number) => string;
}

const integer = (value: number): string => Math.round(value).toLocaleString('en-US');
const dollars = (value: number): string => `$${value.toFixed(2)}`;
const share = (value: number): string => `${(value * 100).toFixed(1)}%`;
const milliseconds = (value: number): string => `${value.toFixed(2)} ms`;

const METRICS: readonly TableMetric[] = [
  { label: 'total tokens', value: (summary) => summary.totalTokens, format: integer },
  { label: 'fresh input', value: (summary) => summary.freshInput, format: integer },
  { label: '  of which cache writes', value: (summary) => summary.cacheWrite, format: integer },
  { label: 'cache read', value: (summary) => summary.cacheRead, format: integer },
  { label: 'output', value: (summary) => summary.output, format: integer },
  { label: 'billed calls', value: (summary) => summary.billedCalls, format: integer },
  { label: '  of which summary calls', value: (summary) => summary.summaryCalls, format: integer },
  { label: 'rejected requests', value: (summary) => summary.rejectedRequests, format: integer },
  { label: 'cost', value: (summary) => summary.costUsd, format: dollars },
  ...COST_SPLIT_PARTS.map(({ key, label }) => ({
    label: `  ${label}`,
    value: (summary: ArmSummary) => summary.costSplit[key],
    format: dollars,
  })),
  { label: 'mean window per request', value: (summary) => meanWindowTotal(summary), format: integer },
  ...WINDOW_PARTS.map(({ key, label }) => ({
    label: `  ${label}`,
    value: (summary: ArmSummary) => summary.meanWindow?.[key],
    format: integer,
  })),
  { label: 'pooled cache share', value: (summary) => summary.pooledCacheShare, format: share },
  { label: 'peak request context', value: (summary) => summary.peakPromptTokens, format: integer },
  { label: 'long-context requests', value: (summary) => summary.longContextRequests, format: integer },
  { label: 'long-context dollars', value: (summary) => summary.longContextUsd, format: dollars },
  { label: 'compactions', value: (summary) => summary.compactions, format: integer },
  { label: 'fold events', value: (summary) => summary.foldEvents, format: integer },
  { label: 'rewrites attributed', value: (summary) => summary.rewritesAttributed, format: integer },
  { label: 'rewrites unattributed', value: (summary) => summary.rewritesUnattributed, format: integer },
  { label: 'ownership warnings', value: (summary) => summary.ownershipWarnings, format: integer },
  { label: 'bytes lost', value: (summary) => summary.bytes?.lostBytes, format: integer },
  { label: '  folded bytes', value: (summary) => summary.bytes?.foldedBytes, format: integer },
  { label: '  spilled bytes', value: (summary) => summary.bytes?.spilledBytes, format: integer },
  { label: '  compacted-away bytes', value: (summary) => summary.bytes?.compactedBytes, format: integer },
  { label: 'file reads', value: (summary) => summary.fileReads, format: integer },
  { label: 'file bytes', value: (summary) => summary.fileBytes, format: integer },
  { label: 'probes correct', value: (summary) => summary.probes?.correct, format: integer },
  { label: 'probes recovered', value: (summary) => summary.probes?.recovered, format: integer },
  { label: 'probes lost', value: (summary) => summary.probes?.lost, format: integer },
  { label: 'probes stale', value: (summary) => summary.probes?.stale, format: integer },
  { label: 'working-set checks correct', value: (summary) => summary.workingSet?.correct, format: integer },
  { label: 'working-set checks recovered', value: (summary) => summary.workingSet?.recovered, format: integer },
  { label: 'working-set checks lost', value: (summary) => summary.workingSet?.lost, format: integer },
  { label: 'working-set checks stale', value: (summary) => summary.workingSet?.stale, format: integer },
  { label: 'recovery reads', value: (summary) => summary.recovery.reads, format: integer },
  { label: '  peeks', value: (summary) => summary.recovery.calls?.peeks, format: integer },
  { label: '  searches', value: (summary) => summary.recovery.calls?.searches, format: integer },
  { label: '  file re-reads', value: (summary) => summary.recovery.calls?.fileRereads, format: integer },
  { label: '  stage re-reads', value: (summary) => summary.recovery.calls?.stageRereads, format: integer },
  { label: '  command re-runs', value: (summary) => summary.recovery.calls?.commandReruns, format: integer },
  { label: 'recovery requests', value: (summary) => summary.recovery.requests, format: integer },
  { label: 'recovery tokens', value: (summary) => summary.recovery.tokens, format: integer },
  { label: 'recovery dollars', value: (summary) => summary.recovery.usd, format: dollars },
  { label: 'hook time p50', value: (_summary, timings) => timings.hookMsP50, format: milliseconds },
  { label: 'hook time p99', value: (_summary, timings) => timings.hookMsP99, format: milliseconds },
];

function meanWindowTotal(summary: ArmSummary): number | undefined {
  const window = summary.meanWindow;
  return window === undefined ? undefined : WINDOW_PARTS.reduce((sum, { key }) => sum + window[key], 0);
}

/** `value ÷ native` as printed: `0.60×`; a dash when native is 0 or the value is absent. */
export function formatRatio(value: number | undefined, native: number | undefined): string {
  if (value === undefined || native === undefined) return '—';
  if (native === 0) return value === 0 ? '1.00×' : '—';
  return `${(value / native).toFixed(2)}×`;
}

/**
 * The table's cells: a header (metric, then each arm and its ratio against `native`) and one
 * row per metric some arm has a value for. The text table and the HTML report's table both
 * render these, so they can never disagree.
 */
export function armTableGrid(run: LabRun) {
  const priceList = priceListOf(run.settings);
  const summaries = run.arms.map((arm) => ({ summary: summarizeArm(arm, priceList), timings: armTimings(arm) }));
  const reference = run.reference ?? 'native';
  const native = summaries.find((entry) => entry.summary.arm === reference);
  // Rows no arm has a value for (probes in a replay, working-set checks) are left out.
  const metrics = METRICS.filter((metric) =>
    summaries.some((entry) => metric.value(entry.summary, entry.timings) !== undefined),
  );
  const header = ['metric', ...summaries.flatMap((entry) => [entry.summary.arm, `×${reference}`])];
  const body = metrics.map((metric) => {
    const nativeValue = native === undefined ? undefined : metric.value(native.summary, native.timings);
    return [
      metric.label,
      ...summaries.flatMap((entry) => {
        const value = metric.value(entry.summary, entry.timings);
        return [value === undefined ? '—' : metric.format(value), formatRatio(value, nativeValue)];
      }),
    ];
  });
  return { summaries, native, reference, header, body };
}

/**
 * The seeds' table, one column per arm with its ratio against `native` beside it, preceded by
 * the settings the run was made with. Probe rows appear only when some arm was scored.
 */
export function formatArmTable(run: LabRun): string {
  const { summaries, native, reference, header, body } = armTableGrid(run);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => (row[column] ?? '').length)));
  const render = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd();
  const { settings } = run;
  const lines = [
    `workload ${settings.workload} · seed ${settings.seed} · price list ${settings.priceList} · budget ${integer(settings.descriptorTokens)} · provider cap ${integer(settings.providerCapTokens)} · tokenizer ${settings.tokenizer}`,
    ...costLossLead(summaries, reference),
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...body.map(render),
  ];
  if (native === undefined) lines.push(`no ${reference} arm in this run: ratios cannot be computed (shown as —)`);
  if (run.bound !== undefined)
    lines.push(
      ...boundLines(
        run.bound,
        summaries.map((entry) => entry.summary),
      ),
    );
  for (const entry of summaries) {
    const settings = entry.summary.foldSettings;
    if (settings !== undefined)
      lines.push(
        `${entry.summary.arm} ran with scheduling ${settings.scheduling}, thresholds ${settings.thresholds.maxTarget}/${settings.thresholds.minTarget}${settings.priceList === undefined ? '' : `, deciding with price list ${settings.priceList}`}${settings.landing === undefined ? '' : `, landing ${settings.landing} on Pi ${settings.pi}`}${settings.landingRequests === undefined ? '' : ` (${landingText(settings.landingRequests)})`} (read back from the runtime)`,
      );
  }
  for (const entry of summaries) {
    const cache = entry.summary.foldSettings?.providerCache;
    if (cache !== undefined) lines.push(providerCacheLine(entry.summary.arm, cache));
  }
  for (const entry of summaries)
    if (entry.summary.bytes !== undefined) lines.push(bytesLostLine(entry.summary.arm, entry.summary.bytes));
  // A replay has no questions to lose or recover: its front would be cost alone.
  if (summaries.some((entry) => entry.summary.probes !== undefined)) {
    const front = costRecoveryFront(
      summaries.map((entry) => entry.summary),
      run.settings.providerCapTokens,
    );
    lines.push(
      `cost/recovery front (cost, recovery reads, questions lost; lower is better): ${
        front.points
          .filter((point) => point.onFront)
          .map((point) => point.arm)
          .join(', ') || 'none'
      }`,
    );
    lines.push(front.statement);
  }
  for (const entry of summaries) {
    if (entry.summary.failure !== undefined)
      lines.push(`${entry.summary.arm} did not finish: ${entry.summary.failure}`);
    for (const note of entry.summary.hostNotes ?? []) lines.push(`${entry.summary.arm}, note: ${note}`);
  }
  return lines.join('\n');
}

/** How an edit-landing arm's requests went out: a landing request goes out from the hook by design, any other one because edits could not say it. */
function landingText(requests: { sentByPi: number; sentByHook: number; landings: number }): string {
  const inexpressible = Math.max(0, requests.sentByHook - requests.landings);
  return `${requests.sentByPi} requests sent by Pi from its own projection, ${requests.sentByHook} by the hook: ${requests.landings} landing, ${inexpressible} the edits could not express`;
}

/** What an arm's runtime learned of the provider's cache losses, the reason some of its commits came at pauses. */
function providerCacheLine(arm: string, cache: NonNullable<FoldArmSettings['providerCache']>): string {
  const head = `${arm} learned from the provider's reports: read from cache on ${integer(cache.reads)} pure appends, gone on ${integer(cache.losses)}`;
  if (cache.steps.length === 0) return `${head} (too few to learn from)`;
  return `${head}; chance the cache is gone after a pause of ${describeLossSteps(cache.steps)}, which its commits weighed (docs/cost-scheduling.md)`;
}

/** The cost/loss table and a blank line, ahead of every measure (nothing for a replay, which asks no questions). */
function costLossLead(summaries: readonly { summary: ArmSummary }[], reference: string): string[] {
  const lines = formatCostLossTable(
    costLossRows(
      summaries.map((entry) => entry.summary),
      reference,
    ),
    reference,
  );
  return lines.length === 0 ? [] : [...lines, ''];
}
