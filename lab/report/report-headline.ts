import { escapeHtml } from '../../application/html-escape.ts';
import type { ArmSummary } from './arm-summary.ts';

const dollars = (value: number): string => `$${value.toFixed(2)}`;
const integer = (value: number): string => Math.round(value).toLocaleString('en-US');

/** A viewer page written beside the report for a fold arm's kept store. */
export interface ViewerLink {
  readonly arm: string;
  /** Relative to the report. */
  readonly href: string;
}

/** The arm a report leads with: the fold arm (or the first fold-like one), else the first arm that is not native. */
function leadArm(summaries: readonly ArmSummary[]): ArmSummary | undefined {
  return (
    summaries.find((summary) => summary.arm === 'fold') ??
    summaries.find((summary) => summary.arm.startsWith('fold')) ??
    summaries.find((summary) => summary.arm !== 'native') ??
    summaries[0]
  );
}

/**
 * The report's first sentence: what the lead arm cost against native, the bytes it lost, and
 * its peak prompt. Built from clauses, so a new headline figure is one more clause.
 */
export function headlineClauses(summaries: readonly ArmSummary[]): string[] {
  const lead = leadArm(summaries);
  if (lead === undefined) return ['No arm ran.'];
  const native = lead.arm === 'native' ? undefined : summaries.find((summary) => summary.arm === 'native');
  const clauses: string[] = [];
  if (native === undefined)
    clauses.push(`${lead.arm} cost ${dollars(lead.costUsd)} over ${integer(lead.requests)} requests`);
  else {
    const ratio = native.costUsd > 0 ? ` (${(lead.costUsd / native.costUsd).toFixed(2)}×)` : '';
    clauses.push(`${lead.arm} cost ${dollars(lead.costUsd)} against native's ${dollars(native.costUsd)}${ratio}`);
  }
  if (lead.bytes !== undefined) clauses.push(`lost ${integer(lead.bytes.lostBytes)} bytes`);
  const questions = [lead.probes, lead.workingSet].filter((score) => score !== undefined);
  if (questions.length > 0) {
    const count = (pick: (score: (typeof questions)[number]) => number | undefined): number =>
      questions.reduce((sum, score) => sum + (pick(score) ?? 0), 0);
    clauses.push(
      `lost ${integer(count((score) => score.lost))} and answered ${integer(count((score) => score.stale))} stale of ${integer(count((score) => score.asked))} questions`,
    );
  }
  clauses.push(
    native === undefined
      ? `peaked at ${integer(lead.peakPromptTokens)} prompt tokens`
      : `peaked at ${integer(lead.peakPromptTokens)} prompt tokens against ${integer(native.peakPromptTokens)}`,
  );
  if (lead.failure !== undefined) clauses.push(`did not finish (${lead.failure})`);
  return clauses;
}

/** The clauses as one sentence. */
export function headlineSentence(summaries: readonly ArmSummary[]): string {
  const clauses = headlineClauses(summaries);
  const body = clauses.length === 1 ? clauses[0]! : `${clauses.slice(0, -1).join(', ')} and ${clauses.at(-1)!}`;
  return `${body}.`;
}

/** The cost the original provider reported for a replayed session, and over how many responses, as the replay's notes give it. */
export function recordedCost(notes: readonly string[]): { dollars: string; responses: number } | undefined {
  for (const note of notes) {
    const match = /^as recorded by the original provider \(([\d,]+) responses.*?(\$[\d,]+\.\d\d)/.exec(note);
    if (match !== null) return { dollars: match[2]!, responses: Number(match[1]!.replace(/,/g, '')) };
  }
  return undefined;
}

/**
 * Why the recorded cost and native's differ, beside both figures: a reader meeting $30 next
 * to $16 with no word of why would take one of them for a mistake.
 */
export function recordedVersusNative(notes: readonly string[], summaries: readonly ArmSummary[]): string {
  const recorded = recordedCost(notes);
  const native = summaries.find((summary) => summary.arm === 'native');
  if (recorded === undefined || native === undefined) return '';
  const agentRequests = native.billedCalls - native.summaryCalls;
  const coverage =
    recorded.responses === agentRequests
      ? ''
      : ` The recorded figure also covers all ${integer(recorded.responses)} recorded responses; this replay ran ${integer(agentRequests)} of them.`;
  return `<p class="recorded-vs-native" id="recorded-vs-native"><strong>Recorded ${escapeHtml(recorded.dollars)}, native ${escapeHtml(dollars(native.costUsd))}.</strong> Recorded is what the original provider reported when the session ran, priced with this report's list: its own tokenizer, its own cache writes, and every cache entry that expired or was evicted in the real run. Native is the same requests replayed through Pi with no folding, counted by the replay's tokenizer and its simulated prefix cache. The two count differently, so compare fold with native: they are counted the same way.${escapeHtml(coverage)}</p>`;
}

/** Links to the viewer pages of the fold stores the run kept. */
export function viewerLinks(links: readonly ViewerLink[]): string {
  if (links.length === 0) return '';
  const items = links.map(
    (link) =>
      `<li><a class="viewer-link" data-arm="${escapeHtml(link.arm)}" href="${escapeHtml(link.href)}">${escapeHtml(link.arm)}: what was folded, every fold and spill with its exact bytes</a></li>`,
  );
  return `<ul class="viewer-links">${items.join('')}</ul>`;
}
