import type { LostFoldV1 } from '../../ports/fold-records.ts';
import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { CommitTelemetry } from '../../ports/projection-sink.port.ts';
import { type CacheLossSummary, describeLossSteps } from '../commit/policy/cache-survival.ts';
import { floorTokensFor } from '../commit/policy/raw-floor.ts';
import { totalChars } from '../render/projection-ledger.ts';
import type { SessionView } from '../session/session-view.ts';
import type { Thresholds } from '../settings/settings.ts';
import type { ActionOutcome } from './action-context.ts';
import { curationNumbers, describeNumbers, planEveryStandingMark } from './action-context.ts';
import { type BudgetSource, budgetSource, describeBudgetSource } from './budget-source.ts';
import { pinnableEntries } from './id-guidance.ts';

/**
 * docs/behaviour.md B4.1: where the window stands. Reads only; the answer is a tool result and nothing in
 * the window changes.
 */
export async function statusAction(session: SessionView, detail: 'summary' | 'tree'): Promise<ActionOutcome> {
  const report = statusReport(session, detail);
  return { text: formatStatus(report), data: report, mutated: false };
}

export interface StatusReport {
  readonly [key: string]: unknown;
  readonly budgetTokens: number | null;
  /** What the budget was worked out from (before this process's first request it may be the stored context). */
  readonly budgetSource: BudgetSource | null;
  readonly occupancy: number | null;
  readonly estimatedTokens: number;
  /**
   * Whether this process has projected the window yet. Before it (a new session, or one just
   * reopened) what a mark frees and what a commit rewrites are not measured: they read 0.
   */
  readonly windowSeen: boolean;
  readonly thresholds: Thresholds;
  readonly scheduling: string;
  /** The raw working-set floor in force (tokens no automatic commit folds), once the budget is known. */
  readonly floorTokens: number | null;
  readonly marks: readonly {
    id: string;
    kind: string;
    origin: string;
    briefed: boolean;
    freesTokens: number;
    shareOfBudget: number | null;
    prefixTokensRewritten: number;
  }[];
  readonly visibleFolds: readonly { id: string; kind: string; entries: number; sourceChars: number; brief: string }[];
  readonly pins: readonly string[];
  /** Folds the store can no longer give back, each with why; present only when there are some. */
  readonly lostFolds?: readonly LostFoldV1[];
  readonly counters: Readonly<Record<string, number>>;
  readonly numbers: ReturnType<typeof curationNumbers> | null;
  /** The latest commits as measured (estimates, then the provider's counts once reported). */
  readonly recentCommits: readonly CommitTelemetry[];
  /** What the provider's reports taught about how long its cache lives (docs/behaviour.md B3.3). */
  readonly providerCache: CacheLossSummary;
  /** Telemetry listeners that threw (their events were still kept here). */
  readonly telemetryListenerFailures: { readonly count: number; readonly last?: string };
  readonly tree?: readonly {
    id: string;
    kind: string;
    depth: number;
    parentId: string | null;
    expanded: boolean;
    firstEntryId: string;
    lastEntryId: string;
  }[];
  /** With `detail: "tree"`: the newest raw entries of the window, whose ids `pin` takes. */
  readonly pinnable?: {
    readonly rows: readonly { entryId: string; role: string; chars: number; preview: string }[];
    readonly total: number;
  };
}

/** Raw entries listed under `detail: "tree"` (newest last); older ones are counted. */
const PINNABLE_LISTED = 40;

export function statusReport(session: SessionView, detail: 'summary' | 'tree' = 'summary'): StatusReport {
  const budget = session.knownBudget() ?? null;
  const frozenMessages = session.frozen;
  // Before the first request there is no window to measure (a restored session answers from its folds).
  const seenWindow = frozenMessages !== undefined;
  const estimatedTokens = session.currentTokens();
  const frozen = frozenMessages ?? [];
  const marks = session.memory.marks.map((mark) => {
    const plan = planEveryStandingMark(session, new Set([mark.id]));
    const freesTokens = Math.floor(session.estimator.tokensForChars(plan.savedChars));
    return {
      id: mark.id,
      kind: mark.kind,
      origin: mark.origin,
      briefed: mark.brief !== undefined,
      freesTokens,
      shareOfBudget: budget === null ? null : round(freesTokens / budget),
      prefixTokensRewritten: prefixTokensFrom(session, frozen, mark.firstEntryId),
    };
  });
  const shownRecords = seenWindow
    ? session.visibleFolds.map((placed) => placed.record)
    : session.lattice.outermostCollapsed();
  const visibleFolds = shownRecords.map((record) => ({
    id: record.id,
    kind: record.kind,
    entries: record.entryCount,
    sourceChars: record.sourceChars,
    brief: record.brief.split('\n')[0] ?? '',
  }));
  const report: StatusReport = {
    budgetTokens: budget,
    budgetSource: budgetSource(session, budget),
    occupancy: budget === null || !seenWindow ? null : round(estimatedTokens / budget),
    estimatedTokens,
    windowSeen: seenWindow,
    thresholds: session.settings.thresholds,
    scheduling: session.settings.scheduling,
    floorTokens: budget === null ? null : floorTokensFor(session.settings.rawFloorTokens, budget),
    marks,
    visibleFolds,
    pins: [...session.memory.pins].sort(),
    ...lostFoldsOf(session),
    counters: { ...session.memory.counters },
    numbers: curationNumbers(session) ?? null,
    recentCommits: session.telemetry.recent,
    providerCache: session.scheduler.clock.learnedLosses(),
    telemetryListenerFailures: {
      count: session.telemetry.listenerFailures,
      ...(session.telemetry.lastListenerFailure === undefined ? {} : { last: session.telemetry.lastListenerFailure }),
    },
    ...(detail === 'tree' ? { tree: foldTree(session), pinnable: pinnableEntries(session, PINNABLE_LISTED) } : {}),
  };
  return report;
}

/** Tokens from the first message a commit of this mark would change to the end of the window. */
function prefixTokensFrom(session: SessionView, frozen: readonly ProjectedMessage[], entryId: string): number {
  const position = frozen.findIndex(
    (message) => (message.kind === 'entry' || message.kind === 'stub') && message.entryId === entryId,
  );
  if (position < 0) return 0;
  return Math.ceil(session.estimator.tokensForChars(totalChars(frozen.slice(position))));
}

function foldTree(session: SessionView) {
  const rows = [...session.lattice.allRecords()].map((record) => {
    let depth = 0;
    for (
      let parent = session.lattice.parentOf(record.id);
      parent !== undefined;
      parent = session.lattice.parentOf(parent)
    )
      depth += 1;
    return {
      id: record.id,
      kind: record.kind,
      depth,
      parentId: session.lattice.parentOf(record.id) ?? null,
      expanded: session.lattice.expanded.has(record.id),
      firstEntryId: record.firstEntryId,
      lastEntryId: record.lastEntryId,
      start: session.lattice.placement(record.id)?.first ?? Number.MAX_SAFE_INTEGER,
      span: (session.lattice.placement(record.id)?.last ?? 0) - (session.lattice.placement(record.id)?.first ?? 0),
    };
  });
  rows.sort((a, b) => a.start - b.start || b.span - a.span || (a.id < b.id ? -1 : 1));
  return rows.map(({ start: _start, span: _span, ...row }) => row);
}

/**
 * When automatic commits land, in a few words. The band's two numbers only describe `band` (and
 * `immediate`, which keeps its trigger and aim); under `cost` the trigger moves with prices and
 * inflow, so naming a fixed band there would tell the agent something false (docs/cost-scheduling.md).
 */
export function describePolicy(report: Pick<StatusReport, 'scheduling' | 'thresholds' | 'floorTokens'>): string {
  const { maxTarget, minTarget } = report.thresholds;
  const floor = report.floorTokens === null ? '' : `, keeps ≥${report.floorTokens} raw tokens`;
  switch (report.scheduling) {
    case 'cost':
      return `cost-scheduled: commits when that is cheaper${floor}, never past ${maxTarget}`;
    case 'eager':
      return `eager: folds every closed unit at once, never past ${maxTarget}`;
    case 'immediate':
      return `commit at ${maxTarget}, down to ${minTarget}, each mark landed as it comes due${floor}`;
    default:
      return `commit at ${maxTarget}, down to ${minTarget}${floor}`;
  }
}

/** What the provider's cache losses taught, in a line: why commits may come at a person's pauses. */
function describeProviderCache(cache: CacheLossSummary): string {
  const head = `provider cache: read on ${cache.reads} pure appends, gone on ${cache.losses}`;
  if (cache.steps.length === 0) return `${head} (too few to learn from)`;
  return `${head}; chance it is gone after a pause of ${describeLossSteps(cache.steps)}: commits weigh a rewrite by it`;
}

/** The lost folds no fold of the same id has replaced since, as a status field. */
function lostFoldsOf(session: SessionView): { lostFolds?: readonly LostFoldV1[] } {
  const lost = session.memory.lostFolds.filter((fold) => session.lattice.record(fold.foldId) === undefined);
  return lost.length === 0 ? {} : { lostFolds: lost };
}

/** The budget, or, before it is known, when it will be. */
function describeBudget(report: StatusReport): string {
  if (report.budgetTokens === null)
    return "budget not known until the first request (it comes from the model's context window, or providerInputBudget in settings)";
  return `budget ${report.budgetTokens} tokens${describeBudgetSource(report.budgetSource)}`;
}

/** Occupancy once a window has been measured; before that, no estimate of 0 tokens that reads as a measurement. */
function describeOccupancy(report: StatusReport): string {
  if (report.occupancy !== null)
    return `occupancy ${Math.round(report.occupancy * 1000) / 10}% (≈${report.estimatedTokens} tokens)`;
  if (!report.windowSeen) return 'occupancy unknown (no request yet)';
  return `occupancy unknown (≈${report.estimatedTokens} tokens, budget not known)`;
}

/** What a mark frees and what its commit rewrites, measured against the window this process last sent. */
function describeMarkSizes(report: StatusReport, mark: StatusReport['marks'][number]): string {
  // Reopened, nothing projected yet: the sizes would read 0, which a person takes for "frees nothing".
  if (!report.windowSeen) return 'frees and rewrites: measured at the next request';
  return `frees ≈${mark.freesTokens} tokens · a commit rewrites ≈${mark.prefixTokensRewritten} prefix tokens`;
}

export function formatStatus(report: StatusReport): string {
  const lines: string[] = [];
  lines.push(`${describeBudget(report)} · ${describeOccupancy(report)} · ${describePolicy(report)}`);
  // What can be peeked comes first: an agent looking for a fold to read starts at the top.
  lines.push(
    `visible folds ${report.visibleFolds.length}:${report.visibleFolds.length > 0 ? ' peek or expand these' : ''}`,
  );
  for (const fold of report.visibleFolds.slice(0, 40))
    lines.push(`- ${fold.id} ${fold.kind} · ${fold.entries} entries · ${fold.brief.slice(0, 100)}`);
  if (report.visibleFolds.length > 40) lines.push(`- … ${report.visibleFolds.length - 40} more`);
  if (report.lostFolds !== undefined)
    lines.push(
      `lost folds ${report.lostFolds.length} (the store cannot give back their bytes; their spans show raw): ${report.lostFolds
        .slice(0, 10)
        .map((fold) => `${fold.foldId} — ${fold.reason.slice(0, 120)}`)
        .join('; ')}`,
    );
  lines.push(`pins ${report.pins.length}${report.pins.length > 0 ? `: ${report.pins.slice(0, 20).join(', ')}` : ''}`);
  // Marks last: their ids are in the window's notice, but there is nothing behind them to read yet.
  lines.push(
    `pending marks ${report.marks.length}:${report.marks.length > 0 ? ' not committed yet, so nothing to peek: their entries are still raw in the window' : ''}`,
  );
  for (const mark of report.marks.slice(0, 40)) {
    lines.push(
      `- ${mark.id} ${mark.kind} by ${mark.origin}${mark.briefed ? ', briefed' : ''} · ${describeMarkSizes(report, mark)}`,
    );
  }
  if (report.marks.length > 40) lines.push(`- … ${report.marks.length - 40} more`);
  const counters = report.counters;
  lines.push(
    `requests ${counters.requests} · pure appends ${counters.pureAppends} · rewrites ${counters.rewrites} (unattributed ${counters.unattributedRewrites}) · provider-side cache misses ${counters.providerCacheMisses} · commits ${counters.commits}`,
  );
  if (report.providerCache.losses > 0) lines.push(describeProviderCache(report.providerCache));
  if (report.numbers !== null && report.numbers !== undefined) lines.push(describeNumbers(report.numbers));
  const commits = report.recentCommits.slice(-5);
  if (commits.length > 0)
    lines.push(`last ${commits.length} commit${commits.length === 1 ? '' : 's'} (estimated → provider-measured):`);
  for (const commit of commits) lines.push(`- ${describeCommit(commit)}`);
  const failures = report.telemetryListenerFailures;
  if (failures.count > 0)
    lines.push(
      `telemetry listeners threw ${failures.count} time${failures.count === 1 ? '' : 's'} (last: ${failures.last ?? 'no message'}); folding went on`,
    );
  if (report.tree !== undefined) {
    lines.push('tree:');
    for (const row of report.tree)
      lines.push(
        `${'  '.repeat(row.depth)}${row.id} ${row.kind}${row.expanded ? ' (expanded)' : ''} ${row.firstEntryId}…${row.lastEntryId}`,
      );
  }
  if (report.pinnable !== undefined) {
    const { rows, total } = report.pinnable;
    lines.push(
      `raw entries in the window ${total}${total > rows.length ? ` (newest ${rows.length} listed)` : ''}; pin takes these ids, or a pending mark's or an expanded fold's id:`,
    );
    for (const row of rows) lines.push(`- ${row.entryId} ${row.role} · ${row.chars} chars · ${row.preview}`);
  }
  return lines.join('\n');
}

/** One commit in a line: what it freed, what cache it gave up, and what the provider then billed. */
export function describeCommit(commit: CommitTelemetry): string {
  const measuredBefore = commit.measuredTokensBefore === undefined ? '' : ` (provider ${commit.measuredTokensBefore})`;
  const measuredAfter =
    commit.measuredTokensAfter === undefined
      ? ' (provider count pending)'
      : ` (provider ${commit.measuredTokensAfter})`;
  const cache = commit.providerCacheRead === undefined ? '' : ` · provider cache read ${commit.providerCacheRead}`;
  return `epoch ${commit.epoch} at request ${commit.request} (${commit.causes.join(', ') || 'commit'}): ${commit.foldsLanded} folds · ≈${commit.estimatedTokensBefore}${measuredBefore} → ≈${commit.estimatedTokensAfter}${measuredAfter} tokens · kept ${commit.prefixMessagesKept} messages, rewrote ≈${commit.prefixTokensRewritten} prefix tokens${cache}`;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
