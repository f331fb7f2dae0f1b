import { armProfile } from '../../arms/arm-profile.ts';
import type { ModelPolicy } from '../../provider/simulated-provider.ts';
import type { ArmName, LabRunSettings } from '../../report/lab-records.ts';
import type { RecordedSession } from '../../transcripts/recorded-session.ts';
import { extractNeeds, type RecordingNeeds } from './extract-needs.ts';
import type { NeedsReport, NeedsRow } from './needs-rows.ts';
import { NeedsTally } from './needs-tally.ts';
import { recordedSummaryRows } from './recorded-windows.ts';
import { windowOfMessages } from './window-view.ts';

/** What a replay knows of a recording's needs before any arm runs. */
export interface ReplayNeeds {
  readonly recording: RecordingNeeds;
  /** The recording's own windows under its host's real summaries, and under the stand-in's (empty without host summaries). */
  readonly recordedRows: readonly NeedsRow[];
}

/** Extract the needs of a recording and score its host's own summaries, once per replay. */
export function prepareReplayNeeds(
  session: Pick<RecordedSession, 'entries' | 'hostCompactions'>,
  responseCount: number,
): ReplayNeeds {
  const extracted = extractNeeds(session.entries);
  // A replay cut short (--max-requests) is scored only on the requests it made.
  const recording = { ...extracted, needs: extracted.needs.filter((need) => need.response < responseCount) };
  return { recording, recordedRows: recordedSummaryRows(session.entries, session.hostCompactions ?? [], recording) };
}

/**
 * The arm's tally and its policy, which reads each agent request's window before the recorded
 * model answers it. Fold arms answer peeks and searches; every other arm only shows its window.
 */
export function observeArmNeeds(
  needs: ReplayNeeds,
  arm: ArmName,
  settings: LabRunSettings,
  model: { readonly policy: ModelPolicy; served(): number },
): { readonly tally: NeedsTally; readonly policy: ModelPolicy } {
  const folding = armProfile(arm, settings).fold !== undefined;
  const tally = new NeedsTally(needs.recording, { peek: folding, search: folding });
  const policy: ModelPolicy = (request) => {
    if (request.purpose === 'agent') {
      const response = model.served();
      if (tally.wants(response)) tally.observe(response, windowOfMessages(request.messages));
    }
    return model.policy(request);
  };
  return { tally, policy };
}

/** Rows of the arms, then the recording's own. */
export function needsReport(needs: ReplayNeeds, armRows: readonly NeedsRow[]): NeedsReport {
  return {
    rows: [...armRows, ...needs.recordedRows],
    distinctPieces: new Set(needs.recording.needs.map((need) => need.piece)).size,
  };
}
