/** Room core/session/: one session put together from its ports, state and services, and its read-only view. */

import type { EngineState } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { FoldWarning, ProjectedMessage, RequestContext } from '../../ports/shared-types.ts';
import { FoldError } from '../fold-error.ts';
import type { FoldLattice } from '../folds/fold-lattice.ts';
import { totalChars } from '../render/projection-ledger.ts';
import type { RenderInputs } from '../render/projection-renderer.ts';
import { viewMessages } from '../render/window-log.ts';
import { requestBudget } from '../settings/settings.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { EngineMemory } from '../state/engine-memory.ts';
import { migrateEngineState } from '../state/engine-state-migration.ts';
import type { FrontierInputs } from '../state/frontier.ts';
import { SessionModel } from '../state/session-model.ts';
import type { SessionPorts } from '../state/session-ports.ts';
import { mergeLostFolds, restoreListedFolds } from '../store/restore-folds.ts';
import { refusedSaveWarning } from '../store/store-outage.ts';
import { type SessionLessons, SessionServices } from './session-services.ts';

/**
 * One session, in three parts: `ports`, fixed for its life; `model`, what it knows and has
 * decided, which requests change; and `services`, the collaborators that derive from the
 * model and own their caches. `open` is the one builder of the three; the methods here are
 * the reads that need more than one part, and saving. Only the facade (`FoldRuntime`) holds
 * it; steps take the slices they read, and readers outside the engine get a `SessionView`
 * (core/session/session-view.ts).
 */
export class SessionState {
  readonly model: SessionModel;
  readonly services: SessionServices;
  /**
   * The state the store last had (as saved, or as opened). Kept here rather than in the model:
   * only saving and closing read it, and a refused action that puts back its decisions must
   * not put this back too.
   */
  #savedState: EngineState | undefined;
  private budgetMemo:
    | {
        readonly modelId: string | undefined;
        readonly provider: string | undefined;
        readonly contextWindow: number | undefined;
        readonly budget: number;
      }
    | undefined;

  private constructor(
    readonly ports: SessionPorts,
    memory: EngineMemory,
    learned: SessionLessons,
  ) {
    // The first request fixes the session's spill policy; a restored session keeps its own (docs/behaviour.md I1).
    const spills = new SpillBook(memory.settleSpillPolicy(ports.settings.spill), ports.settings.toolName);
    this.model = new SessionModel(memory, (entry) => spills.windowChars(entry));
    this.services = new SessionServices(ports, spills, this.model, learned);
  }

  /**
   * Open a session: restore its state and standing folds from the store, or start fresh. Closing
   * later saves only what changed since.
   */
  static async open(ports: SessionPorts): Promise<SessionState> {
    const { foldStore, sessionId } = ports;
    const state = await loadStateOrExplain(foldStore, sessionId);
    const session =
      state === undefined
        ? new SessionState(ports, new EngineMemory(sessionId), { calibration: [] })
        : await SessionState.restored(ports, state);
    session.#savedState = session.snapshot();
    return session;
  }

  private static async restored(ports: SessionPorts, state: EngineState): Promise<SessionState> {
    const { foldStore, sessionId } = ports;
    const session = new SessionState(ports, EngineMemory.restore(state), state);
    const { records, lost } = await restoreListedFolds(foldStore, sessionId, state.foldIds);
    const { model } = session;
    const { memory } = model;
    memory.keepRestoredFolds(
      records.map((record) => record.id),
      mergeLostFolds(memory.lostFolds, lost),
    );
    model.lattice.load(
      records,
      state.expanded.filter((foldId) => memory.foldIds.includes(foldId)),
    );
    // Its budget is the one its last request had, until this process's first request (or the host) says otherwise.
    model.reopened(lost, state.requestContext);
    return session;
  }

  /** Save the session's state. The revision moves only once the store has it: a refused save changes nothing. */
  async save(): Promise<void> {
    const { ports, model } = this;
    const revision = model.memory.revision + 1;
    const state = { ...this.snapshot(), revision };
    await ports.foldStore.saveState(ports.sessionId, state);
    model.memory.savedAs(revision);
    this.#savedState = state;
  }

  /**
   * Save state during a projection. A refused save must not stop the request (its window is
   * already decided and every fold in it is stored): it is tried again at the next decision.
   * Resolves to whether the store took it.
   */
  saveOrWarn(warnings: FoldWarning[]): Promise<boolean> {
    // Handed on as it is (no async frame of its own): most requests save, and each frame is a promise more.
    return this.services.storeOutage.attempt(() => this.save(), warnings, refusedSaveWarning, true);
  }

  /**
   * Save what the store does not have yet. A request whose only change is its counters (or a
   * provider's count that moved the calibration) writes no state (see `handOut`), so the last
   * of them would be lost when the session closes; closing saves them. A session with nothing
   * unsaved writes nothing. Resolves to whether a save was made.
   */
  async saveUnsaved(warnings: FoldWarning[]): Promise<boolean> {
    const saved = this.#savedState;
    if (saved !== undefined && sameState(saved, this.snapshot())) return false;
    return this.saveOrWarn(warnings);
  }

  /** The messages of the projection most recently handed to the host (a copy). */
  get frozen(): ProjectedMessage[] | undefined {
    const view = this.model.frozenView;
    return view === undefined ? undefined : viewMessages(view);
  }

  /** What a render reads (over `lattice`, the session's own by default). */
  renderInputs(lattice: FoldLattice = this.model.lattice): RenderInputs {
    const { retiredPeeks, insertsByAnchor } = this.services.lookups.of(this.model.memory);
    return {
      index: this.model.index,
      lattice,
      retiredPeeks,
      insertsByAnchor,
      toolName: this.ports.settings.toolName,
      spills: this.services.spills,
    };
  }

  /** What the frontier reads for one pass. */
  frontierInputs(): FrontierInputs {
    const { index, lattice, memory, visibleFolds } = this.model;
    return {
      index,
      lattice,
      memory,
      settings: this.ports.settings,
      visibleFolds,
      request: memory.nextRequest,
    };
  }

  budgetTokens(context: RequestContext = this.model.lastContext): number {
    // The budget follows from the settings and three fields of the context, which stay the
    // same request after request: it is worked out again only when one of them changes.
    const memo = this.budgetMemo;
    const { model, contextWindow } = context;
    if (
      memo !== undefined &&
      memo.modelId === model?.id &&
      memo.provider === model?.provider &&
      memo.contextWindow === contextWindow
    )
      return memo.budget;
    const budget = requestBudget(this.ports.settings, context);
    this.budgetMemo = { modelId: model?.id, provider: model?.provider, contextWindow, budget };
    return budget;
  }

  knownBudget(): number | undefined {
    if (this.model.lastBudget !== undefined) return this.model.lastBudget;
    try {
      return this.budgetTokens();
    } catch {
      return undefined;
    }
  }

  estimateTokens(chars: number): number {
    return this.services.estimator.estimate(chars, this.model.lastContext.overheadChars ?? 0);
  }

  /**
   * Estimated tokens of the window as it stands: the last projection handed to the host, or,
   * when actions have already queued a rewrite (an expand), the window that rewrite will produce.
   */
  currentTokens(): number {
    const { frozenView, pendingCauses } = this.model;
    if (frozenView === undefined) return 0;
    if (pendingCauses.size === 0) return this.estimateTokens(frozenView.chars);
    return this.estimateTokens(totalChars(this.pendingWindow()));
  }

  pendingWindow(): ProjectedMessage[] {
    return this.services.renderer.renderAll(this.renderInputs()).messages;
  }

  /** The state record to save (the revision is the caller's). */
  snapshot(): EngineState {
    const { calibration, ...learned } = this.services.lessons();
    return this.model.memory.snapshot(this.model.lattice.expanded, calibration, learned);
  }
}

function sameState(a: EngineState, b: EngineState): boolean {
  // Both come from the same `snapshot`, so their keys are in the same order.
  return JSON.stringify({ ...a, revision: 0 }) === JSON.stringify({ ...b, revision: 0 });
}

/** Codes of a state that exists but cannot be read; `pi-fold repair` rebuilds it from the verified folds. */
const DAMAGED_STATE_CODES = new Set(['STORE.SCHEMA_VERSION', 'STORE.HASH_MISMATCH', 'STATE.CORRUPT']);

/** Load and migrate the stored state; a damaged one is refused with the way back in. */
async function loadStateOrExplain(foldStore: FoldStore, sessionId: string): Promise<EngineState | undefined> {
  try {
    const stored = await foldStore.loadState(sessionId);
    return stored === undefined ? undefined : migrateEngineState(stored, sessionId);
  } catch (error) {
    if (!FoldError.isInstance(error) || !DAMAGED_STATE_CODES.has(error.code)) throw error;
    const hint = `run \`npx pi-fold repair <store> --session ${sessionId}\` to rebuild it from the fold records and blobs the store can verify (every verified fold is kept)`;
    throw new FoldError(error.code, `${error.message}; ${hint}`, {
      cause: error,
      details: { ...error.details, sessionId, repair: 'pi-fold repair' },
    });
  }
}
