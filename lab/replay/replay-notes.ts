import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { RecordedSession } from '../transcripts/recorded-session.ts';
import type { ArmReplay } from './arm-replay.ts';
import type { ReplayGap, ReplayPlan } from './replay-plan.ts';

const LISTED_LINES = 10;

/**
 * The deterministic remarks on what was read and what could not be. Taken before the arms
 * run, so the converted session can be let go. They go into the stable summary: no timings.
 */
export function describeSession(
  session: RecordedSession,
  plan: ReplayPlan,
  priceList: PriceList = DEFAULT_PRICE_LIST,
): string[] {
  const notes: string[] = [];
  notes.push(
    `transcript ${session.format}, ${session.linesRead} lines, ${session.entries.length} entries on the active branch, ${session.responses.length} recorded responses, ${session.compactions} recorded compaction(s)`,
  );
  const malformed = session.malformedLines;
  const listed = malformed
    .slice(0, LISTED_LINES)
    .map((skipped) => `line ${skipped.line} (${skipped.reason})`)
    .join('; ');
  notes.push(
    `malformed lines skipped: ${malformed.length}${malformed.length > 0 ? ` — ${listed}${malformed.length > LISTED_LINES ? '; …' : ''}` : ''}`,
  );
  const recorded = recordedUsage(session, priceList);
  if (recorded.responsesWithUsage > 0) {
    notes.push(
      `as recorded by the original provider (${recorded.responsesWithUsage} responses with usage): ${recorded.fresh.toLocaleString('en-US')} fresh input (of which ${recorded.cacheWrite.toLocaleString('en-US')} cache writes), ${recorded.cacheRead.toLocaleString('en-US')} cache read, ${recorded.output.toLocaleString('en-US')} output; $${recorded.dollars.toFixed(2)} at ${priceList.name}`,
    );
  }
  notes.push(
    `${plan.turns.length} user turns replayed (${plan.mergedUserMessages} consecutive user messages joined into the prompt before them); tools: ${plan.toolNames.join(', ') || 'none'}`,
  );
  return notes;
}

/** How requests are counted, and every gap by kind per arm (deterministic, like the rest). */
export function describeArms(plan: ReplayPlan, arms: readonly ArmReplay[]): string[] {
  const notes: string[] = [];
  notes.push(
    'request counting: every recorded response is one agent request; billed calls also include native compaction summary calls (shown as "of which summary calls"); refused prompts are "rejected requests" and are retried by the arm, not billed',
  );
  for (const arm of arms) {
    const matches = arm.answeredAgentRequests === plan.responseCount;
    notes.push(
      `${arm.result.arm}: ${arm.answeredAgentRequests} agent requests answered for ${plan.responseCount} recorded responses${matches ? '' : arm.result.failure !== undefined ? ' (the arm stopped early: see its failure)' : ' (MISMATCH)'}; gaps: ${gapCounts(arm.gaps)}`,
    );
  }
  return notes;
}

function gapCounts(gaps: readonly ReplayGap[]): string {
  if (gaps.length === 0) return 'none';
  const counts = new Map<string, number>();
  for (const gap of gaps) counts.set(gap.kind, (counts.get(gap.kind) ?? 0) + 1);
  return [...counts]
    .sort(([left], [right]) => left.localeCompare(right))
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
}

// What the session cost when it was recorded, priced per response with the replay's list.
function recordedUsage(
  session: RecordedSession,
  priceList: PriceList,
): {
  fresh: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
  dollars: number;
  responsesWithUsage: number;
} {
  const totals = { fresh: 0, cacheRead: 0, cacheWrite: 0, output: 0, dollars: 0, responsesWithUsage: 0 };
  for (const response of session.responses) {
    if (response.usage === undefined) continue;
    totals.responsesWithUsage += 1;
    totals.fresh += response.usage.input + response.usage.cacheWrite;
    totals.cacheRead += response.usage.cacheRead;
    totals.cacheWrite += response.usage.cacheWrite;
    totals.output += response.usage.output;
    totals.dollars += priceRequest(priceList, response.usage);
  }
  return totals;
}
