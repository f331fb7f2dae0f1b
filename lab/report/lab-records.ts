import type { CacheLossSummary } from '../../core/commit/policy/cache-survival.ts';
/**
 * The contract between the lab's runners (live workload, replay) and its reports.
 * Runners produce one `RequestRow` per model request and one `ArmResult` per arm; every
 * report (table, CSV, JSON, HTML) is computed from these alone, so the live bench and
 * `replay` print the same table.
 */

import type { PriceList } from '../../ports/cost-model.port.ts';
import type { ArmName } from '../arms/arms.ts';
import type { NeedsReport } from '../replay/needs/needs-rows.ts';
import type { WindowParts } from './window-parts.ts';

export type { ArmName } from '../arms/arms.ts';

/** What happened to the window at a request, as the runtime attributes it. */
export type WindowEvent = 'append' | 'commit' | 'compaction' | 'rewrite-unattributed';

/** One model request as the simulated provider billed it. */
export interface RequestRow {
  readonly arm: ArmName;
  /** 0-based order of the request within the arm's run. */
  readonly index: number;
  /** Tokens of the whole serialized prompt (system, tools, messages) by the real tokenizer. */
  readonly promptTokens: number;
  /** Prompt tokens served from the simulated prefix cache. */
  readonly cacheRead: number;
  /** Prompt tokens not served from the cache (promptTokens - cacheRead), cache writes included. */
  readonly freshInput: number;
  /** Of `freshInput`, the tokens billed at the cache-write rate, for price lists whose writes cost more than input (absent: 0). */
  readonly cacheWrite?: number;
  /** Tokens of the scripted reply. */
  readonly output: number;
  /** Dollars for this request under the chosen price list (long-context tier applied per request). */
  readonly costUsd: number;
  /** True when promptTokens exceeds the price list's long-context boundary. */
  readonly longContext: boolean;
  /** True when the provider refused the prompt for exceeding its hard cap (billed nothing). */
  readonly rejected: boolean;
  /** How this prompt relates to the previous one of the same arm. */
  readonly event: WindowEvent;
  /**
   * What the request was for: the agent's own turn, a native summary call, a probe answer,
   * or a recovery (the agent reading again what its window no longer shows: the request
   * that carries the recovered text, which a window that still showed it would not need).
   */
  readonly purpose: 'agent' | 'summary' | 'probe' | 'recovery';
  /** Milliseconds the arm's runtime spent in its hooks before this request (0 for unmanaged). */
  readonly hookMs: number;
  /** What the prompt was made of, in tokens (`window-parts.ts`); absent on refused prompts. */
  readonly window?: WindowParts;
}

/** Probe scoring for one arm (live workload only; replay leaves it undefined). */
export interface ProbeScore {
  readonly asked: number;
  /** Answered right from what was visible in the window. */
  readonly correct: number;
  /** Answered right after a recovery read (peek of a fold, re-read of a stage). */
  readonly recovered: number;
  /** Answered "unknown" or wrong. */
  readonly lost: number;
  /**
   * Answered with what the tool said when asked again, which the state had moved away from
   * since (a shaped workload's test run, log, listing or edited file); counted apart from `lost`.
   */
  readonly stale?: number;
  /** Recovery reads the agent made (for probes and working-set checks alike; by kind in `ArmResult.recoveryCalls`). */
  readonly recoveryReads: number;
}

/** How the agent did on the working-set checks of its stage work. */
export interface WorkingSetScore {
  readonly asked: number;
  /** Answered right from a file still raw in the window. */
  readonly correct: number;
  /** Answered right after a recovery read (peek, search, re-read of the file). */
  readonly recovered: number;
  /** Answered "unknown" or wrong. */
  readonly lost: number;
  /** Answered with what the tool says now, after the state moved (shaped workload); counted apart from `lost`. */
  readonly stale?: number;
}

/** Every call the agent made to get back something its window no longer showed. */
export interface RecoveryCalls {
  /** `peek` of a fold (fold arms). */
  readonly peeks: number;
  /** `search` of the folded history (fold arms). */
  readonly searches: number;
  /** `read` of a file again (any arm: a compaction arm has nothing else). */
  readonly fileRereads: number;
  /** `repo_stage` delivering a stage again (a marker no fold shows). */
  readonly stageRereads: number;
  /** A shell command or search run again (shaped workload): its output is what the state says now. */
  readonly commandReruns?: number;
}

/** A fold arm's effective settings, as the runtime reports them. */
export interface FoldArmSettings {
  readonly scheduling: string;
  readonly thresholds: {
    readonly maxTarget: number;
    readonly minTarget: number;
    readonly consolidateAfter: number;
    readonly minFoldChars: number;
  };
  /** The price list the runtime's scheduler decided with (its CostModel's), read back after the run. */
  readonly priceList?: string;
  /** How the runtime landed its commits (`context-hook` or `session-edits`), read back after the run. */
  readonly landing?: string;
  /**
   * On the edit landing: requests Pi sent from its own projection, requests the hook sent the
   * window for (each landing, and any window the edits could not express), and the landings.
   */
  readonly landingRequests?: { readonly sentByPi: number; readonly sentByHook: number; readonly landings: number };
  /** The Pi version the arm ran on. */
  readonly pi?: string;
  /**
   * What the runtime learned from the provider's reports about how long its cache lives
   * (docs/behaviour.md B3.3), read back after the run; present once the provider lost its cache on
   * a pure append.
   */
  readonly providerCache?: CacheLossSummary;
}

/**
 * What left an arm's window and whether it can be had back exactly (lab/arms/byte-audit.ts):
 * a fold arm's folds and spills verified against the session's entries, and what Pi's own
 * compaction took out of the context. Bytes are UTF-8 bytes of the entries' canonical form.
 */
export interface ByteAccounting {
  /** Every message entry of the session's branch at the end of the run. */
  readonly transcriptBytes: number;
  /** Bytes that cannot be had back exactly: folded or spilled bytes that failed verification, and compacted-away bytes no verified fold holds. */
  readonly lostBytes: number;
  readonly lostEntries: number;
  /** Entries covered by the arm's fold records (each once), and how many records (consolidations and their children included). */
  readonly foldedBytes: number;
  readonly foldedEntries: number;
  readonly folds: number;
  /** Spilled items met in the arm's windows, each once, and their bytes. */
  readonly spilledBytes: number;
  readonly spills: number;
  /** Compaction entries on the branch, and the entries before the latest one's first kept entry (out of Pi's context). */
  readonly compactions: number;
  readonly compactedBytes: number;
  readonly compactedEntries: number;
  /** The first problems found, in words (empty when nothing was lost to a failed check). */
  readonly problems: readonly string[];
}

/** Everything one arm did in one run. */
export interface ArmResult {
  readonly arm: ArmName;
  readonly rows: readonly RequestRow[];
  /** Native compactions that ran (Pi's own compaction code). */
  readonly compactions: number;
  /** Folds landed by the fold runtime (0 for other arms). */
  readonly foldEvents: number;
  /** Prompts that were not a pure append of the previous one, split by attribution. */
  readonly rewritesAttributed: number;
  readonly rewritesUnattributed: number;
  /** Files the agent read through its tools, and their bytes. */
  readonly fileReads: number;
  readonly fileBytes: number;
  /** Times pi-fold found it did not own the window alone (fold arms; every occurrence counted). */
  readonly ownershipWarnings?: number;
  readonly probes?: ProbeScore;
  /** Working-set checks: details of recently read files the agent's stage work needs (live workload only). */
  readonly workingSet?: WorkingSetScore;
  /** Recovery calls the agent made, by kind (live workload only). */
  readonly recoveryCalls?: RecoveryCalls;
  /** The pi-fold settings the runtime really ran with (fold arms), read back from it after the run. */
  readonly foldSettings?: FoldArmSettings;
  /** What left the window and whether it can be had back exactly (every arm that ran a Pi session). */
  readonly bytes?: ByteAccounting;
  /** Set when the arm could not finish (e.g. the provider cap refused a prompt with no recovery). */
  readonly failure?: string;
  /** What the host did that a reader of a finished arm's figures should know (e.g. a retry Pi announced and never started). */
  readonly hostNotes?: readonly string[];
}

/** The settings a run was made with, printed in every report so figures can be reproduced. */
export interface LabRunSettings {
  readonly workload: string;
  readonly seed: number;
  readonly priceList: string;
  /**
   * The price list itself where it is not one of `PRICE_LISTS` by name: a catalog's entry
   * for the recorded model (its `source` names the catalog and its version).
   */
  readonly prices?: PriceList;
  /** The Pi every arm of the run ran on (`@earendil-works/pi-coding-agent 1.6.0`), where the runner says. */
  readonly piHost?: string;
  /** The window the runtimes budget against. */
  readonly descriptorTokens: number;
  /** Prompts above this are refused by the simulated provider. */
  readonly providerCapTokens: number;
  readonly tokenizer: string;
  readonly cacheRules: {
    readonly minimumTokens: number;
    readonly granularity: number;
    readonly ttlSeconds: number;
    readonly maxEntries: number;
  };
}

/**
 * The cheapest any lossless schedule could bill for one arm's requests, by perfect foresight
 * over its commit points and depths (lab/bound, docs/cost-scheduling.md "The bound").
 */
export interface CostBound {
  /** The arm whose requests (and whose fixed block) the bound schedules. */
  readonly arm: ArmName;
  readonly costUsd: number;
  readonly requests: number;
  /** Transcript entries the windows showed, each once. */
  readonly entries: number;
  /** Tokens of the fixed block every request carries (system prompt and tool schemas). */
  readonly fixedTokens: number;
  /** The raw floor in force, in Pi's tokens. */
  readonly floorTokens: number;
  /** Requests (0-based) at which the bound's schedule commits. */
  readonly commits: readonly number[];
  /** Of those, the ones at a request whose cache was cold anyway (an idle gap past its lifetime, or a recorded cold start): free commits. */
  readonly coldCommits: number;
  /**
   * The arm's own windows billed as the bound bills, with pi-fold's own messages (briefs,
   * stubs, notices, receipts) carrying no tokens: its schedule without its overhead. From the
   * bound to this is the arm's timing and depth; from this to the arm's cost, its overhead.
   */
  readonly armWindowsUsd?: number;
  /** Requests whose messages could not be lined up with the projection (their new entries are missing): 0 when exact. */
  readonly unalignedRequests: number;
}

/** A whole run: the settings and one result per arm. */
export interface LabRun {
  readonly settings: LabRunSettings;
  readonly arms: readonly ArmResult[];
  /** The cost bound, where the run had the arm it is taken on. */
  readonly bound?: CostBound;
  /** The arm every ratio is taken against. @default 'native' (the AI SDK lab, which has no native, names its own) */
  readonly reference?: ArmName;
  /** What each arm kept of what the recorded model needed (replays: lab/replay/needs/). */
  readonly needs?: NeedsReport;
}
