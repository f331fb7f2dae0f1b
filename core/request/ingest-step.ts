import type { TranscriptEntry } from '../../ports/transcript-entry.ts';
import type { BranchRead } from '../../ports/transcript-source.port.ts';
import type { SessionServices } from '../session/session-services.ts';
import type { FrontierInputs } from '../state/frontier.ts';
import type { SessionModel } from '../state/session-model.ts';
import type { IngestResult } from '../transcript/transcript-index.ts';
import { takeBackArrivedFolds } from './arrived-folds.ts';

/** What reading the host's branch writes: the index, the forest's placement, the frontier and the queued causes. */
export interface IngestTarget {
  readonly model: Pick<SessionModel, 'index' | 'lattice' | 'pendingCauses' | 'queueRewrite' | 'frozenView' | 'memory'>;
  readonly services: Pick<SessionServices, 'frontier' | 'scheduler'>;
}

/** What reading the branch found: the index's account, and whether folds placed again were taken back. */
export interface BranchIngest extends IngestResult {
  /** Folds placed again over entries the window shows raw became expanded folds marked to refold (B6.7). */
  readonly takenBack: boolean;
}

/** What a source hands over, for a host that hands an array: the whole branch. */
export function wholeBranch(entries: readonly TranscriptEntry[]): BranchRead {
  return { kind: 'branch', entries };
}

/**
 * Read the host's branch into the index: appended entries cost what they add; a branch
 * switch or a rewrite of history re-places every fold and queues a `transcript-changed`
 * rewrite. Returns where the new entries start, whether the host renamed entries, and
 * whether folds placed again over entries shown raw were taken back (docs/behaviour.md B6.7).
 */
export function ingestBranch(target: IngestTarget, read: BranchRead): BranchIngest {
  const { index, lattice } = target.model;
  const ingest =
    read.kind === 'appended' ? index.ingestAppended(read.afterEntryId, read.entries) : index.ingest(read.entries);
  if (ingest.divergedAt !== undefined) {
    lattice.resolve();
    target.services.frontier.reset();
    target.model.queueRewrite('transcript-changed');
    target.services.scheduler.inflow.resetAnchor();
    return { ...ingest, takenBack: false };
  }
  const takenBack = takeBackArrivedFolds(target.model, lattice.placeArrived(), ingest.appendedFrom);
  return { ...ingest, takenBack };
}

/** What the decisions made on arrival write: retired peeks and the frontier's cuts. */
export interface ArrivalTarget {
  readonly model: Pick<SessionModel, 'index' | 'memory' | 'queueRewrite'>;
  readonly services: Pick<SessionServices, 'frontier'>;
  frontierInputs(): FrontierInputs;
}

/** Decisions the new entries allow: answered peeks retire, closed units are cut. Returns whether state changed. */
export function decideOnArrival(target: ArrivalTarget): boolean {
  const retired = retireAnsweredPeeks(target.model);
  const cuts = target.services.frontier.pass(target.frontierInputs());
  return retired || cuts.length > 0;
}

/**
 * docs/behaviour.md B4.2: once the model has replied after an ephemeral peek, its result is replaced by a
 * one-line stub, a give-back rewrite at the next projection. Returns whether any peek retired.
 */
export function retireAnsweredPeeks(model: Pick<SessionModel, 'index' | 'memory' | 'queueRewrite'>): boolean {
  const { index, memory } = model;
  if (memory.ephemeralPeeks.every((peek) => peek.retired)) return false;
  let changed = false;
  memory.retirePeeksWhere((peek) => {
    const position = index.resultPositionOf(peek.toolCallId);
    if (position === undefined || index.lastAssistantPosition <= position) return false;
    changed = true;
    model.queueRewrite('give-back');
    return true;
  });
  return changed;
}
