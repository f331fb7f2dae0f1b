import type { EngineState } from '../../ports/fold-records.ts';
import type { ProjectedMessage, RequestContext } from '../../ports/shared-types.ts';
import type { FoldLattice } from '../folds/fold-lattice.ts';
import { totalChars } from '../render/projection-ledger.ts';
import type { RenderInputs } from '../render/projection-renderer.ts';
import { viewMessages } from '../render/window-log.ts';
import { requestBudget } from '../settings/settings.ts';
import { SpillBook } from '../spill/spill-book.ts';
import type { EngineMemory } from '../state/engine-memory.ts';
import type { FrontierInputs } from '../state/frontier.ts';
import { SessionModel } from '../state/session-model.ts';
import type { SessionPorts } from '../state/session-ports.ts';
import { type SessionLessons, SessionServices } from './session-services.ts';

/** The ports one session runs on, and its settings: fixed for the session's life. */
export type FoldRuntimeDependencies = SessionPorts;

/**
 * One session, in three parts: `ports`, fixed for its life; `model`, what it knows and has
 * decided, which requests change; and `services`, the collaborators that derive from the
 * model and own their caches. The methods here are the reads that need more than one part.
 * Only the facade (`FoldRuntime`) holds it; steps take the slices they read, and readers
 * outside the engine get a `SessionView` (core/session/session-view.ts).
 */
export class SessionState {
  readonly model: SessionModel;
  readonly services: SessionServices;
  private budgetMemo:
    | {
        readonly modelId: string | undefined;
        readonly provider: string | undefined;
        readonly contextWindow: number | undefined;
        readonly budget: number;
      }
    | undefined;

  constructor(
    readonly ports: SessionPorts,
    memory: EngineMemory,
    learned: SessionLessons,
  ) {
    // The first request fixes the session's spill policy; a restored session keeps its own (docs/behaviour.md I1).
    memory.spillPolicy ??= ports.settings.spill;
    const spills = new SpillBook(memory.spillPolicy, ports.settings.toolName);
    this.model = new SessionModel(memory, (entry) => spills.windowChars(entry));
    this.services = new SessionServices(ports, spills, this.model, learned);
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
      request: memory.counters.requests + 1,
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
