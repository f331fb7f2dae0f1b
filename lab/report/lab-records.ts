/**
 * The contract between the lab's runners (live workload, replay) and its reports.
 * Runners produce one `RequestRow` per model request and one `ArmResult` per arm; every
 * report (table, CSV, JSON, HTML) is computed from these alone, so the live bench and
 * `replay` print the same table.
 */

/** Which runtime managed the context for an arm. */
export type ArmName = 'unmanaged' | 'native' | 'fold' | 'fold-immediate' | 'oracle' | `extension:${string}`;

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
  /** Prompt tokens billed as fresh input (promptTokens - cacheRead). */
  readonly freshInput: number;
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
  /** What the request was for: the agent's own turn, a native summary call, or a probe answer. */
  readonly purpose: 'agent' | 'summary' | 'probe';
  /** Milliseconds the arm's runtime spent in its hooks before this request (0 for unmanaged). */
  readonly hookMs: number;
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
  /** Recovery reads the agent made to answer probes. */
  readonly recoveryReads: number;
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
  /** Set when the arm could not finish (e.g. the provider cap refused a prompt with no recovery). */
  readonly failure?: string;
}

/** The settings a run was made with, printed in every report so figures can be reproduced. */
export interface LabRunSettings {
  readonly workload: string;
  readonly seed: number;
  readonly priceList: string;
  /** The window the runtimes budget against. */
  readonly descriptorTokens: number;
  /** Prompts above this are refused by the simulated provider. */
  readonly providerCapTokens: number;
  readonly tokenizer: string;
  readonly cacheRules: { readonly minimumTokens: number; readonly granularity: number; readonly ttlSeconds: number; readonly maxEntries: number };
}

/** A whole run: the settings and one result per arm. */
export interface LabRun {
  readonly settings: LabRunSettings;
  readonly arms: readonly ArmResult[];
}
