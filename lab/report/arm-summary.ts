import type { PriceList } from '../../ports/cost-model.port.ts';
import { armCostSplit, type CostSplit, priceListNamed } from './cost-split.ts';
import type {
  ArmName,
  ArmResult,
  ByteAccounting,
  FoldArmSettings,
  ProbeScore,
  RecoveryCalls,
  RequestRow,
  WorkingSetScore,
} from './lab-records.ts';
import { meanWindowParts, type WindowParts } from './window-parts.ts';

/** The seeds' table for one arm, computed from its request rows and counters alone. */
export interface ArmSummary {
  readonly arm: ArmName;
  /** Every request the arm issued, billed or refused. */
  readonly requests: number;
  /** Requests the provider accepted and billed. */
  readonly billedCalls: number;
  /** Native summary calls among the billed calls (they are requests the recorded session never made). */
  readonly summaryCalls: number;
  readonly rejectedRequests: number;
  /** Fresh input (cache writes included) + cache read + output over billed calls. */
  readonly totalTokens: number;
  readonly freshInput: number;
  /** Of the fresh input, tokens billed at the cache-write rate (0 for price lists that bill writes as input). */
  readonly cacheWrite: number;
  readonly cacheRead: number;
  readonly output: number;
  readonly costUsd: number;
  /** Cache read ÷ (cache read + fresh input), pooled over billed calls (0 when nothing was sent). */
  readonly pooledCacheShare: number;
  /** Largest prompt the provider accepted. */
  readonly peakPromptTokens: number;
  readonly longContextRequests: number;
  /** Dollars of the requests billed at the long-context tier. */
  readonly longContextUsd: number;
  readonly compactions: number;
  readonly foldEvents: number;
  readonly rewritesAttributed: number;
  readonly rewritesUnattributed: number;
  readonly ownershipWarnings: number;
  readonly fileReads: number;
  readonly fileBytes: number;
  readonly probes?: ProbeScore;
  /** Where the dollars went; the parts add up to `costUsd`. */
  readonly costSplit: CostSplit;
  /** Mean tokens per agent request by what the window held (`window-parts.ts`), when the rows say. */
  readonly meanWindow?: WindowParts;
  /** Recovery: calls by kind, and the requests that carried recovered text with their tokens and dollars. */
  readonly recovery: RecoverySummary;
  readonly workingSet?: WorkingSetScore;
  readonly foldSettings?: FoldArmSettings;
  /** What left the window and whether it can be had back exactly (lab/arms/byte-audit.ts). */
  readonly bytes?: ByteAccounting;
  readonly failure?: string;
  /** What the host did that a reader of the arm's figures should know (`ArmResult.hostNotes`). */
  readonly hostNotes?: readonly string[];
}

/** What getting back folded or compacted-away context cost an arm. */
export interface RecoverySummary {
  /** Recovery calls of every kind (peeks, searches, file and stage re-reads): the arm's recovery reads. */
  readonly reads: number;
  readonly calls?: RecoveryCalls;
  /** Billed requests whose newest results were recovery reads. */
  readonly requests: number;
  /** Their fresh input + cache read + output. */
  readonly tokens: number;
  readonly usd: number;
}

/** Wall-clock figures of an arm: they drift between machines, so they never enter the stable summary. */
export interface ArmTimings {
  readonly arm: ArmName;
  readonly hookMsP50: number;
  readonly hookMsP99: number;
  readonly hookMsTotal: number;
}

/** Sum the rows of an arm into the seeds' table, the cost split priced by `priceList` (the run's). */
export function summarizeArm(arm: ArmResult, priceList: PriceList = priceListNamed('')): ArmSummary {
  let billedCalls = 0;
  let summaryCalls = 0;
  let freshInput = 0;
  let cacheRead = 0;
  let cacheWrite = 0;
  let output = 0;
  let costUsd = 0;
  let peakPromptTokens = 0;
  let longContextRequests = 0;
  let longContextUsd = 0;
  for (const row of arm.rows) {
    if (row.rejected) continue;
    billedCalls += 1;
    if (row.purpose === 'summary') summaryCalls += 1;
    freshInput += row.freshInput;
    cacheWrite += row.cacheWrite ?? 0;
    cacheRead += row.cacheRead;
    output += row.output;
    costUsd += row.costUsd;
    peakPromptTokens = Math.max(peakPromptTokens, row.promptTokens);
    if (row.longContext) {
      longContextRequests += 1;
      longContextUsd += row.costUsd;
    }
  }
  const prompt = freshInput + cacheRead;
  return {
    arm: arm.arm,
    requests: arm.rows.length,
    billedCalls,
    summaryCalls,
    rejectedRequests: arm.rows.length - billedCalls,
    totalTokens: prompt + output,
    freshInput,
    cacheWrite,
    cacheRead,
    output,
    // Rounded to micro-dollars so float summation order never changes the stable bytes.
    costUsd: roundMicro(costUsd),
    pooledCacheShare: prompt === 0 ? 0 : Math.round((cacheRead / prompt) * 1e6) / 1e6,
    peakPromptTokens,
    longContextRequests,
    longContextUsd: roundMicro(longContextUsd),
    compactions: arm.compactions,
    foldEvents: arm.foldEvents,
    rewritesAttributed: arm.rewritesAttributed,
    rewritesUnattributed: arm.rewritesUnattributed,
    ownershipWarnings: arm.ownershipWarnings ?? 0,
    fileReads: arm.fileReads,
    fileBytes: arm.fileBytes,
    ...(arm.probes !== undefined ? { probes: arm.probes } : {}),
    costSplit: armCostSplit(arm.rows, priceList),
    ...meanWindowField(arm.rows),
    recovery: recoverySummary(arm),
    ...(arm.workingSet !== undefined ? { workingSet: arm.workingSet } : {}),
    ...(arm.foldSettings !== undefined ? { foldSettings: arm.foldSettings } : {}),
    ...(arm.bytes !== undefined ? { bytes: arm.bytes } : {}),
    ...(arm.failure !== undefined ? { failure: arm.failure } : {}),
    ...(arm.hostNotes !== undefined && arm.hostNotes.length > 0 ? { hostNotes: arm.hostNotes } : {}),
  };
}

function meanWindowField(rows: readonly RequestRow[]): { meanWindow?: WindowParts } {
  const meanWindow = meanWindowParts(rows);
  return meanWindow === undefined ? {} : { meanWindow };
}

function recoverySummary(arm: ArmResult): RecoverySummary {
  let requests = 0;
  let tokens = 0;
  let usd = 0;
  for (const row of arm.rows) {
    if (row.rejected || row.purpose !== 'recovery') continue;
    requests += 1;
    tokens += row.freshInput + row.cacheRead + row.output;
    usd += row.costUsd;
  }
  const calls = arm.recoveryCalls;
  const reads =
    calls === undefined
      ? (arm.probes?.recoveryReads ?? 0)
      : calls.peeks + calls.searches + calls.fileRereads + calls.stageRereads + (calls.commandReruns ?? 0);
  return { reads, ...(calls === undefined ? {} : { calls }), requests, tokens, usd: roundMicro(usd) };
}

/** The arm's time in hooks per request (p50/p99 by nearest rank). */
export function armTimings(arm: ArmResult): ArmTimings {
  const hookTimes = arm.rows.map((row: RequestRow) => row.hookMs);
  return {
    arm: arm.arm,
    hookMsP50: percentile(hookTimes, 50),
    hookMsP99: percentile(hookTimes, 99),
    hookMsTotal: hookTimes.reduce((sum, value) => sum + value, 0),
  };
}

/** Nearest-rank percentile; 0 for no values. */
export function percentile(values: readonly number[], rank: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const position = Math.min(sorted.length - 1, Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1));
  return sorted[position]!;
}

function roundMicro(dollars: number): number {
  return Math.round(dollars * 1e6) / 1e6;
}
