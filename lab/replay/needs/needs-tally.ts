import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { PriceList } from '../../../ports/cost-model.port.ts';
import { priceBill } from '../../provider/request-bill.ts';
import type { RequestRow } from '../../report/lab-records.ts';
import type { Need, RecordingNeeds } from './extract-needs.ts';
import { NEED_KINDS, type NeedKind } from './need-pieces.ts';
import type { NeedCounts, NeedsRow, RecoveryBill } from './needs-rows.ts';
import { NEED_SCORES, type RecoveryAbilities, type ScoredNeed, scoreNeed } from './score-need.ts';
import type { WindowView } from './window-view.ts';

/** Output tokens a peek or read call costs the model to write. */
const CALL_OUTPUT_TOKENS = 40;

export function emptyCounts(): NeedCounts {
  return { needs: 0, visible: 0, oneCallAway: 0, reobtainable: 0, searchable: 0, lost: 0, notReached: 0 };
}

/**
 * Scores an arm's needs as its requests go out: each request's window is read only when a
 * need falls on it, then let go. Needs of requests the arm never made are `notReached`.
 */
export class NeedsTally {
  private readonly byResponse = new Map<number, Need[]>();
  private readonly scored = new Map<Need, ScoredNeed>();

  constructor(
    private readonly recording: RecordingNeeds,
    private readonly abilities: RecoveryAbilities,
  ) {
    for (const need of recording.needs) {
      const list = this.byResponse.get(need.response);
      if (list === undefined) this.byResponse.set(need.response, [need]);
      else list.push(need);
    }
  }

  /** True when a need falls on this response (so its window is worth reading). */
  wants(response: number): boolean {
    return this.byResponse.has(response);
  }

  /** Score the needs of `response` against the window its request showed. */
  observe(response: number, window: WindowView): void {
    for (const need of this.byResponse.get(response) ?? [])
      this.scored.set(need, scoreNeed(need, window, this.recording, this.abilities));
  }

  /** Every need scored so far, with its score (the order of the recording). */
  scoredNeeds(): { need: Need; scored: ScoredNeed }[] {
    return this.recording.needs.flatMap((need) => {
      const scored = this.scored.get(need);
      return scored === undefined ? [] : [{ need, scored }];
    });
  }

  /** The row, with recovery billed against the arm's own agent requests where it ran any. */
  row(name: string, source: NeedsRow['source'], billing?: RecoveryBilling): NeedsRow {
    const counts = emptyCounts();
    const byKind = Object.fromEntries(NEED_KINDS.map((kind) => [kind, emptyCounts()])) as Record<NeedKind, NeedCounts>;
    for (const need of this.recording.needs) {
      const score = this.scored.get(need)?.score ?? 'notReached';
      for (const tally of [counts, byKind[need.kind]]) {
        tally.needs += 1;
        tally[score] += 1;
      }
    }
    return {
      name,
      source,
      counts,
      byKind,
      ...(billing === undefined ? {} : { recovery: this.bill(billing) }),
    };
  }

  /**
   * Each request whose needs take calls gets one more request after it, as the lab bills a
   * recovery: the window it just sent read from the cache, the calls and what they bring back
   * as fresh input, the calls as output. One call serves every need its text holds.
   */
  private bill(billing: RecoveryBilling): RecoveryBill {
    const agentRows = billing.rows.filter((row) => row.purpose !== 'summary' && !row.rejected);
    let calls = 0;
    let requests = 0;
    let tokens = 0;
    let usd = 0;
    for (const [response, needs] of this.byResponse) {
      const reads = new Map<string, { calls: number; text: string }>();
      for (const need of needs) {
        const scored = this.scored.get(need);
        if (scored?.readBack === undefined) continue;
        // Two needs of one fold: the peeks that reach the farther one read the nearer one too.
        const known = reads.get(scored.readBack.key);
        if (known === undefined || known.calls < scored.calls)
          reads.set(scored.readBack.key, { calls: scored.calls, text: scored.readBack.text });
      }
      const row = agentRows[response];
      if (reads.size === 0 || row === undefined) continue;
      const callCount = [...reads.values()].reduce((sum, read) => sum + read.calls, 0);
      const readTokens = [...reads.values()].reduce((sum, read) => sum + encode(read.text).length, 0);
      const fresh = Math.round((readTokens + callCount * CALL_OUTPUT_TOKENS) * billing.tokenScale);
      const output = Math.round(callCount * CALL_OUTPUT_TOKENS * billing.tokenScale);
      usd += priceBill(billing.prices, { cacheRead: row.promptTokens, fresh }, output).costUsd;
      calls += callCount;
      requests += 1;
      tokens += fresh;
    }
    return { calls, requests, tokens, usd };
  }
}

/** What billing a recovery needs: the arm's rows, its prices and the replay's token scale. */
export interface RecoveryBilling {
  readonly rows: readonly RequestRow[];
  readonly prices: PriceList;
  readonly tokenScale: number;
}

export { NEED_SCORES };
