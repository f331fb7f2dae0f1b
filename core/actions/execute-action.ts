import type { IdGuidanceInputs } from './id-guidance.ts';
import type { FoldOrigin } from '../../ports/fold-records.ts';
import { planLanding } from '../commit-landing.ts';
import { EngineMemory } from '../engine-state.ts';
import { FoldError } from '../fold-error.ts';
import type { FoldRuntime } from '../fold-runtime.ts';
import { parseAction, type FoldAction } from './action-arguments.ts';
import { briefAction, pinAction, reboundaryAction, unmarkAction, unpinAction } from './curation-actions.ts';
import { peekAction } from './peek-action.ts';
import { searchAction } from './search-action.ts';
import { statusAction } from './status-action.ts';
import { expandAction, refoldAction } from './window-actions.ts';

/** Who is acting: the agent through its tool, or a person through a command. */
export interface ActionCaller {
  /** @default 'agent' */
  readonly origin?: Exclude<FoldOrigin, 'runtime'>;
  /** The host's id for this tool call; lets a peek be ephemeral (B4.2). */
  readonly toolCallId?: string;
}

/** The two numbers every curation answer carries (B4), in tokens. */
export interface CurationNumbers {
  /** What the next commit must free to bring occupancy down to minTarget. */
  readonly nextCommitMustFree: number;
  /** What every standing mark would free if it all landed now. */
  readonly standingMarksWillFree: number;
}

export interface ActionAnswer {
  readonly action: FoldAction['action'];
  /** Text for the model (the tool result). */
  readonly text: string;
  /** The same facts as data, for hosts and tests. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly numbers: CurationNumbers | undefined;
}

export type ActionOutcome = { readonly text: string; readonly data: Readonly<Record<string, unknown>>; readonly mutated: boolean };

/**
 * Validate and run one action. A refusal leaves state exactly as it was: the memory is
 * snapshotted first and restored if anything fails, including the write of the new state.
 */
export async function executeAction(runtime: FoldRuntime, request: unknown, caller: ActionCaller): Promise<ActionAnswer> {
  const action = parseAction(request);
  // Reads (status, peek, search) change at most the ephemeral-peek list, restored by hand below;
  // everything else is snapshotted whole so a refusal can put it all back.
  const reads = action.action === 'status' || action.action === 'peek' || action.action === 'search';
  const before = reads ? undefined : runtime.memory.snapshot(runtime.lattice.expanded, runtime.estimator.calibration());
  const peeksBefore = runtime.memory.ephemeralPeeks;
  const causesBefore = new Set(runtime.pendingCauses);
  try {
    const outcome = await dispatch(runtime, action, caller);
    if (outcome.mutated) await runtime.persist();
    const numbers = reads ? undefined : curationNumbers(runtime);
    const text = numbers === undefined ? outcome.text : `${outcome.text}\n${describeNumbers(numbers)}`;
    return { action: action.action, text, data: { ...outcome.data, ...(numbers === undefined ? {} : { numbers }) }, numbers };
  } catch (error) {
    if (before === undefined) {
      runtime.memory.ephemeralPeeks = peeksBefore;
      throw error;
    }
    runtime.memory = EngineMemory.restore(before);
    runtime.lattice.expanded.clear();
    for (const id of before.expanded) runtime.lattice.expanded.add(id);
    runtime.pendingCauses.clear();
    for (const cause of causesBefore) runtime.pendingCauses.add(cause);
    throw error;
  }
}

async function dispatch(runtime: FoldRuntime, action: FoldAction, caller: ActionCaller): Promise<ActionOutcome> {
  switch (action.action) {
    case 'status':
      return statusAction(runtime, action.detail);
    case 'peek':
      return peekAction(runtime, action, caller);
    case 'search':
      return searchAction(runtime, action);
    case 'brief':
      return briefAction(runtime, action.id, action.text);
    case 'expand':
      return expandAction(runtime, action.id);
    case 'refold':
      return refoldAction(runtime, action.id, caller);
    case 'pin':
      return pinAction(runtime, action.ids);
    case 'unpin':
      return unpinAction(runtime, action.ids);
    case 'reboundary':
      return reboundaryAction(runtime, action.ids, action.brief, caller);
    case 'unmark':
      return unmarkAction(runtime, action.id);
  }
}

/** The two numbers, from the last projection's estimate; undefined before any budget is known. */
export function curationNumbers(runtime: FoldRuntime): CurationNumbers | undefined {
  const budget = runtime.lastBudget ?? runtime.settings.providerInputBudget;
  if (budget === undefined) return undefined;
  const current = runtime.currentTokens();
  const plan = planLandingEverything(runtime);
  return {
    nextCommitMustFree: Math.max(0, Math.ceil(current - runtime.settings.thresholds.minTarget * budget)),
    standingMarksWillFree: Math.floor(runtime.estimator.tokensForChars(plan.savedChars)),
  };
}

/** What landing every standing mark (or only `onlyMarkIds`) would do now; a plan, nothing applied. */
export function planLandingEverything(runtime: FoldRuntime, onlyMarkIds?: ReadonlySet<string>) {
  return planLanding({ index: runtime.index, lattice: runtime.lattice, memory: runtime.memory, toolName: runtime.settings.toolName }, Number.POSITIVE_INFINITY, onlyMarkIds);
}

export function describeNumbers(numbers: CurationNumbers): string {
  return `next commit must free ≈${numbers.nextCommitMustFree} tokens; standing marks will free ≈${numbers.standingMarksWillFree} tokens`;
}

/** Resolve an id to a pending mark or refuse naming what the id is instead. */
export function requirePendingMark(runtime: FoldRuntime, id: string, verb: string) {
  const mark = runtime.memory.markById(id);
  if (mark !== undefined) return mark;
  if (runtime.lattice.record(id) !== undefined) {
    throw new FoldError('ACTION.NOT_PENDING', `${verb}: ${id} is a standing fold; its words are already in the window and cannot change (only pending marks can)`, { details: { id } });
  }
  throw unknownId(runtime, id, verb);
}

/** The narrow view the id-guidance helpers read. */
export function guidanceInputs(runtime: FoldRuntime): IdGuidanceInputs {
  return { index: runtime.index, lattice: runtime.lattice, memory: runtime.memory, toolName: runtime.settings.toolName };
}

export function unknownId(runtime: FoldRuntime, id: string, verb: string): FoldError {
  const kind = runtime.index.positionOf(id) !== undefined ? 'an entry, not a fold' : 'not a fold, mark or entry of this session';
  return new FoldError('ACTION.UNKNOWN_ID', `${verb}: ${JSON.stringify(id.slice(0, 80))} is ${kind}`, { details: { id: id.slice(0, 80) } });
}
