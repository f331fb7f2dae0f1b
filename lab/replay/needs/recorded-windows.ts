import type { TranscriptEntry } from '../../../ports/transcript-source.port.ts';
import type { HostCompaction } from '../../transcripts/recorded-session.ts';
import { type RecordingNeeds, writtenText } from './extract-needs.ts';
import type { NeedsRow } from './needs-rows.ts';
import { NeedsTally } from './needs-tally.ts';
import { type SummaryItem, standInSummary } from './standin-summary.ts';
import { windowOfText } from './window-view.ts';

/** The row of the recording's own windows under its host's real summaries. */
export const RECORDED_ROW = 'recorded (host summaries)';
/** The same windows with the replay's stand-in summarizer in place of each real summary. */
export const STANDIN_ROW = 'recorded, stand-in summaries';

/**
 * Score the needs against the windows the recording's host really sent: before its first
 * compaction the whole history, after one its summary and the entries it kept. Then the same
 * windows with the replay's stand-in summarizer's words instead of each real summary, so the
 * two can be set side by side: the stand-in must keep at least what the real ones keep.
 * Empty when the file holds no summary of its host's.
 */
export function recordedSummaryRows(
  entries: readonly TranscriptEntry[],
  compactions: readonly HostCompaction[],
  recording: RecordingNeeds,
): NeedsRow[] {
  if (compactions.length === 0) return [];
  const standIns = standInSummaries(entries, compactions);
  // One window per response that used a need (its needs share it), built from the entries it kept.
  const responses = new Map(recording.needs.map((need) => [need.response, need.entryIndex]));
  const sources = sourcesByResponse(recording);
  const rows: NeedsRow[] = [];
  for (const [name, summaries] of [
    [RECORDED_ROW, compactions.map((compaction) => compaction.summary)],
    [STANDIN_ROW, standIns],
  ] as const) {
    const tally = new NeedsTally(recording, { peek: false, search: false });
    for (const [response, entryIndex] of responses) {
      const latest = latestBefore(compactions, entryIndex);
      // Before its first compaction a host sends the whole history, which holds every source of
      // the response's needs: those sources stand for it (the same verdicts, without copying a
      // session of hundreds of MB once per response).
      const text =
        latest === undefined
          ? sources.get(response)!
          : `${summaries[latest]!}\n${wordsOf(entries.slice(compactions[latest]!.firstKeptEntry, entryIndex))}`;
      tally.observe(response, windowOfText(text));
    }
    rows.push(tally.row(name, 'recorded'));
  }
  return rows;
}

/** The texts of the tool results that gave each response's needs. */
function sourcesByResponse(recording: RecordingNeeds): Map<number, string> {
  const sources = new Map<number, Set<number>>();
  for (const need of recording.needs) {
    const set = sources.get(need.response) ?? new Set<number>();
    for (const index of need.sources) set.add(index);
    sources.set(need.response, set);
  }
  return new Map(
    [...sources].map(([response, set]) => [
      response,
      [...set].map((index) => recording.sources.get(index)?.text ?? '').join('\n'),
    ]),
  );
}

function wordsOf(kept: readonly TranscriptEntry[]): string {
  return kept.map((entry) => (entry.role === 'toolResult' ? entry.text : writtenText(entry))).join('\n');
}

/** The compaction in force at an entry: the latest that took effect at or before it. */
function latestBefore(compactions: readonly HostCompaction[], entryIndex: number): number | undefined {
  let latest: number | undefined;
  for (const [position, compaction] of compactions.entries()) if (compaction.fromEntry <= entryIndex) latest = position;
  return latest;
}

/** Each compaction's stand-in summary: of the entries it took out of the window, and the stand-in before it. */
function standInSummaries(entries: readonly TranscriptEntry[], compactions: readonly HostCompaction[]): string[] {
  const summaries: string[] = [];
  let keptFrom = 0;
  for (const compaction of compactions) {
    // A host that writes its summary as an entry (Claude Code) has it at `fromEntry`: not summarized again.
    const summarized = entries.slice(keptFrom, Math.min(compaction.firstKeptEntry, compaction.fromEntry));
    const items: SummaryItem[] = summarized.map((entry) => ({
      role: entry.role === 'toolResult' ? 'tool' : entry.role,
      text: entry.role === 'toolResult' ? entry.text : writtenText(entry),
    }));
    summaries.push(standInSummary(items, summaries.at(-1)));
    keptFrom = compaction.firstKeptEntry;
  }
  return summaries;
}
