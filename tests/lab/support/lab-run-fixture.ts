import { priceRequest } from '../../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../../core/pricing/price-lists.ts';
import type { ArmName, ArmResult, LabRun, RequestRow } from '../../../lab/report/lab-records.ts';

const LEDGER = PRICE_LISTS['gpt-5.6-ledger']!;

/** A request row priced by the real price code, as a runner would bill it. */
export function billedRow(
  arm: ArmName,
  index: number,
  prompt: {
    tokens: number;
    cacheRead: number;
    output: number;
    hookMs?: number;
    purpose?: RequestRow['purpose'];
    rejected?: boolean;
  },
): RequestRow {
  const fresh = prompt.tokens - prompt.cacheRead;
  const rejected = prompt.rejected ?? false;
  return {
    arm,
    index,
    promptTokens: prompt.tokens,
    cacheRead: rejected ? 0 : prompt.cacheRead,
    freshInput: rejected ? 0 : fresh,
    output: rejected ? 0 : prompt.output,
    costUsd: rejected
      ? 0
      : priceRequest(LEDGER, { input: fresh, cacheRead: prompt.cacheRead, cacheWrite: 0, output: prompt.output }),
    longContext: prompt.tokens > LEDGER.longContext!.aboveTokens,
    rejected,
    event: 'append',
    purpose: prompt.purpose ?? 'agent',
    hookMs: prompt.hookMs ?? 0,
  };
}

/** An arm whose prompts grow by `step` tokens per request from `start`, each caching its predecessor. */
export function growingArm(
  arm: ArmName,
  requests: number,
  start: number,
  step: number,
  extra: Partial<ArmResult> = {},
): ArmResult {
  const rows: RequestRow[] = [];
  for (let index = 0; index < requests; index += 1) {
    const tokens = start + index * step;
    rows.push(
      billedRow(arm, index, { tokens, cacheRead: index === 0 ? 0 : tokens - step, output: 200, hookMs: index % 7 }),
    );
  }
  return {
    arm,
    rows,
    compactions: 0,
    foldEvents: 0,
    rewritesAttributed: 0,
    rewritesUnattributed: 0,
    fileReads: requests,
    fileBytes: requests * 1000,
    ...extra,
  };
}

/** A run with the default lab settings and the given arms. */
export function labRun(arms: readonly ArmResult[]): LabRun {
  return {
    settings: {
      workload: 'fixture',
      seed: 7,
      priceList: 'gpt-5.6-ledger',
      descriptorTokens: 272_000,
      providerCapTokens: 372_000,
      tokenizer: 'o200k_base',
      cacheRules: { minimumTokens: 1024, granularity: 128, ttlSeconds: 300, maxEntries: 16 },
    },
    arms,
  };
}
