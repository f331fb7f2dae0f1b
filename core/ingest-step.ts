import type { TranscriptEntry } from '../ports/transcript-entry.ts';
import type { BranchRead } from '../ports/transcript-source.port.ts';
import type { SessionState } from './session-state.ts';

/** What reading the host's branch writes: the index, the forest's placement, the frontier and the queued causes. */
export type IngestTarget = Pick<SessionState, 'index' | 'lattice' | 'frontier' | 'pendingCauses' | 'scheduler'>;

/** What a source hands over, for a host that hands an array: the whole branch. */
export function wholeBranch(entries: readonly TranscriptEntry[]): BranchRead {
  return { kind: 'branch', entries };
}

/**
 * Read the host's branch into the index: appended entries cost what they add; a branch
 * switch or a rewrite of history re-places every fold and queues a `transcript-changed`
 * rewrite. Returns where the new entries start.
 */
export function ingestBranch(target: IngestTarget, read: BranchRead): number {
  const ingest =
    read.kind === 'appended'
      ? target.index.ingestAppended(read.afterEntryId, read.entries)
      : target.index.ingest(read.entries);
  if (ingest.divergedAt !== undefined) {
    target.lattice.resolve();
    target.frontier.reset();
    target.pendingCauses.add('transcript-changed');
    target.scheduler.inflow.resetAnchor();
  } else {
    target.lattice.placeArrived();
  }
  return ingest.appendedFrom;
}

/** What the decisions made on arrival write: retired peeks and the frontier's cuts. */
export type ArrivalTarget = Pick<SessionState, 'index' | 'memory' | 'frontier' | 'pendingCauses' | 'frontierInputs'>;

/** Decisions the new entries allow: answered peeks retire, closed units are cut. Returns whether state changed. */
export function decideOnArrival(target: ArrivalTarget): boolean {
  const retired = retireAnsweredPeeks(target);
  const cuts = target.frontier.pass(target.frontierInputs());
  return retired || cuts.length > 0;
}

/**
 * docs/behaviour.md B4.2: once the model has replied after an ephemeral peek, its result is replaced by a
 * one-line stub, a give-back rewrite at the next projection. Returns whether any peek retired.
 */
export function retireAnsweredPeeks(target: Pick<SessionState, 'index' | 'memory' | 'pendingCauses'>): boolean {
  if (target.memory.ephemeralPeeks.every((peek) => peek.retired)) return false;
  let changed = false;
  target.memory.ephemeralPeeks = target.memory.ephemeralPeeks.map((peek) => {
    if (peek.retired) return peek;
    const position = target.index.resultPositionOf(peek.toolCallId);
    if (position === undefined || target.index.lastAssistantPosition <= position) return peek;
    changed = true;
    target.pendingCauses.add('give-back');
    return { ...peek, retired: true };
  });
  return changed;
}
