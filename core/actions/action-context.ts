import type { FoldOrigin } from '../../ports/fold-records.ts';
import type { RewriteCause } from '../../ports/ledger-row.ts';
import { planStandingMarks } from '../commit/plan/plan-marks.ts';
import type { CommitPlan } from '../commit/plan/planner.ts';
import { FoldError } from '../fold-error.ts';
import type { SessionState } from '../session/session-state.ts';
import type { SessionView } from '../session/session-view.ts';
import { lostFoldNamed, lostFoldRefusal } from '../store/restore-folds.ts';
import type { FoldAction } from './action-arguments.ts';
import type { IdGuidanceInputs } from './id-guidance.ts';

/**
 * What an action reads and writes: the index and forest, the decisions in memory, the
 * queued rewrites, the frontier (rewound when a span is freed) and the fold store (reads
 * verified). Built from the session's parts for one action (`actionContextOf`); the facade
 * takes the decisions before and puts them back if the action fails.
 */
export interface ActionContext {
  readonly sessionId: string;
  readonly settings: SessionState['ports']['settings'];
  readonly foldStore: SessionState['ports']['foldStore'];
  readonly evidenceStore: SessionState['ports']['evidenceStore'];
  readonly spills: SessionState['services']['spills'];
  readonly index: SessionState['model']['index'];
  readonly lattice: SessionState['model']['lattice'];
  readonly memory: SessionState['model']['memory'];
  readonly estimator: SessionState['services']['estimator'];
  readonly frontier: SessionState['services']['frontier'];
  /** Queue a rewrite of the window for the next projection. */
  queueRewrite(cause: RewriteCause): void;
  readonly lastBudget: number | undefined;
  currentTokens(): number;
}

/** The context of one action, from the session's three parts as they stand when it starts. */
export function actionContextOf(session: SessionState): ActionContext {
  const { ports, model, services } = session;
  return {
    sessionId: ports.sessionId,
    settings: ports.settings,
    foldStore: ports.foldStore,
    evidenceStore: ports.evidenceStore,
    spills: services.spills,
    index: model.index,
    lattice: model.lattice,
    memory: model.memory,
    estimator: services.estimator,
    frontier: services.frontier,
    queueRewrite: (cause) => model.queueRewrite(cause),
    lastBudget: model.lastBudget,
    currentTokens: () => session.currentTokens(),
  };
}

/** What the read-only actions (status) need: the session's view. */
export type ReadContext = SessionView;

/** Who is acting: the agent through its tool, or a person through a command. */
export interface ActionCaller {
  /** @default 'agent' */
  readonly origin?: Exclude<FoldOrigin, 'runtime'>;
  /** The host's id for this tool call; lets a peek be ephemeral (docs/behaviour.md B4.2). */
  readonly toolCallId?: string;
}

/** The two numbers every curation answer carries (docs/behaviour.md B4), in tokens. */
export interface CurationNumbers {
  /** What the next commit must free to bring occupancy down to minTarget. */
  readonly nextCommitMustFree: number;
  /** What every standing mark would free if it all landed now. */
  readonly standingMarksWillFree: number;
}

/** What `act` returns. */
export interface ActionAnswer {
  readonly action: FoldAction['action'];
  /** Text for the model (the tool result). */
  readonly text: string;
  /** The same facts as data, for hosts and tests. */
  readonly data: Readonly<Record<string, unknown>>;
  readonly numbers: CurationNumbers | undefined;
}

/**
 * What one action did: its words, its data, and whether state must be saved. `textBytes` is
 * the UTF-8 length of `text` when the action counted it while cutting it (a peek); otherwise
 * it is measured from the text.
 */
export type ActionOutcome = {
  readonly text: string;
  readonly textBytes?: number;
  readonly data: Readonly<Record<string, unknown>>;
  readonly mutated: boolean;
};

/** The two numbers, from the last projection's estimate; undefined before any budget is known. */
export function curationNumbers(
  session: Pick<
    SessionView,
    'settings' | 'index' | 'lattice' | 'memory' | 'estimator' | 'lastBudget' | 'currentTokens'
  >,
): CurationNumbers | undefined {
  const budget = session.lastBudget ?? session.settings.providerInputBudget;
  if (budget === undefined) return undefined;
  const current = session.currentTokens();
  const plan = planEveryStandingMark(session);
  return {
    nextCommitMustFree: Math.max(0, Math.ceil(current - session.settings.thresholds.minTarget * budget)),
    standingMarksWillFree: Math.floor(session.estimator.tokensForChars(plan.savedChars)),
  };
}

/** What folding every standing mark (or only `onlyMarkIds`) would do now; a plan, nothing applied. */
export function planEveryStandingMark(
  session: Pick<SessionView, 'settings' | 'index' | 'lattice' | 'memory'>,
  onlyMarkIds?: ReadonlySet<string>,
): CommitPlan {
  return planStandingMarks(
    { index: session.index, lattice: session.lattice, memory: session.memory, toolName: session.settings.toolName },
    { charsToFree: Number.POSITIVE_INFINITY, ...(onlyMarkIds === undefined ? {} : { onlyMarkIds }) },
  );
}

export function describeNumbers(numbers: CurationNumbers): string {
  return `next commit must free ≈${numbers.nextCommitMustFree} tokens; standing marks will free ≈${numbers.standingMarksWillFree} tokens`;
}

/** Resolve an id to a pending mark or refuse naming what the id is instead. */
export function requirePendingMark(
  session: Pick<SessionView, 'index' | 'lattice' | 'memory'>,
  id: string,
  verb: string,
) {
  const mark = session.memory.markById(id);
  if (mark !== undefined) return mark;
  if (session.lattice.record(id) !== undefined) {
    throw new FoldError(
      'ACTION.NOT_PENDING',
      `${verb}: ${id} is a standing fold; its words are already in the window and cannot change (only pending marks can)`,
      { details: { id } },
    );
  }
  throw unknownId(session, id, verb);
}

/** The narrow view the id-guidance helpers read. */
export function guidanceInputs(
  session: Pick<SessionView, 'index' | 'lattice' | 'memory' | 'settings'>,
): IdGuidanceInputs {
  return {
    index: session.index,
    lattice: session.lattice,
    memory: session.memory,
    toolName: session.settings.toolName,
  };
}

export function unknownId(
  session: Pick<SessionView, 'index'> & Partial<Pick<SessionView, 'memory'>>,
  id: string,
  verb: string,
): FoldError {
  const lost = session.memory === undefined ? undefined : lostFoldNamed(session.memory, id);
  if (lost !== undefined) return lostFoldRefusal(verb, lost);
  const kind =
    session.index.positionOf(id) !== undefined ? 'an entry, not a fold' : 'not a fold, mark or entry of this session';
  return new FoldError('ACTION.UNKNOWN_ID', `${verb}: ${JSON.stringify(id.slice(0, 80))} is ${kind}`, {
    details: { id: id.slice(0, 80) },
  });
}
