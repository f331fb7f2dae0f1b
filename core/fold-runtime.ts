import type { RequestUsage } from '../ports/cost-model.port.ts';
import type { FoldWarning } from '../ports/fold-warning.ts';
import type { ProjectionResult } from '../ports/projection.ts';
import type { RequestContext } from '../ports/request-context.ts';
import type { TranscriptEntry } from '../ports/transcript-entry.ts';
import type { BranchRead, TranscriptSource } from '../ports/transcript-source.port.ts';
import { ACTION_NAMES } from './actions/action-arguments.ts';
import type { ActionAnswer, ActionCaller } from './actions/action-context.ts';
import { executeAction } from './actions/execute-action.ts';
import { FoldError } from './fold-error.ts';
import { type ProjectionObserver, subscribeObserver } from './render/outbound-channel.ts';
import { wholeBranch } from './request/ingest-step.ts';
import { projectRequest } from './request/project-request.ts';
import { SessionState } from './session/session-state.ts';
import type { SessionView } from './session/session-view.ts';
import { sessionView } from './session/session-view.ts';
import type { ForcedCommitCause } from './state/forced-commit.ts';
import type { FoldRuntimeDependencies } from './state/session-ports.ts';
import { expectedRequestContext } from './state/stored-request-context.ts';

export type { ProjectionResult } from '../ports/projection.ts';
export type { RequestContext } from '../ports/request-context.ts';
export type { FoldRuntimeDependencies } from './state/session-ports.ts';

/** Reads a runtime's session for `sessionStateOf`; set by the class itself, the one that may. */
let sessionOf: (runtime: FoldRuntime) => SessionState;

/**
 * One session's fold engine, as a host meets it. Hosts call `project` before every model
 * request and `act` for the agent's tool; everything else (cutting, committing, rendering,
 * accounting) happens inside, and the window only ever changes at a recorded rewrite (docs/behaviour.md I1).
 * The session's state sits behind this facade; `view` reads it.
 */
export class FoldRuntime {
  private disposed = false;
  private readonly reader: SessionView;

  private constructor(private readonly session: SessionState) {
    this.reader = sessionView(session);
  }

  static {
    sessionOf = (runtime) => runtime.session;
  }

  /** Open a session: restore its state and standing folds from the store, or start fresh. */
  static async open(dependencies: FoldRuntimeDependencies): Promise<FoldRuntime> {
    return new FoldRuntime(await SessionState.open(dependencies));
  }

  /** The session, read only: what status, editors and tests look at. */
  get view(): SessionView {
    return this.reader;
  }

  /**
   * The number the next `project` call gives its request (its ledger row's `request`), so a
   * host can name the request it is about to project.
   */
  get nextRequest(): number {
    return this.session.model.memory.nextRequest;
  }

  /**
   * Build the projection for the next model request from the host's active branch: read
   * through its TranscriptSource (or given whole, as an array of entries).
   * @throws FoldError `BUDGET.EXCEEDED` when no lossless fold can bring the request under the
   * budget (docs/behaviour.md I6);
   *   `TRANSCRIPT.WRONG_SESSION` for a source of another session; `TRANSCRIPT.STALE_READ` for an
   * append that does not continue the branch.
   */
  async project(
    branch: TranscriptSource | readonly TranscriptEntry[],
    context: RequestContext = {},
  ): Promise<ProjectionResult> {
    this.assertOpen();
    return projectRequest(this.session, this.readBranch(branch), context);
  }

  private readBranch(branch: TranscriptSource | readonly TranscriptEntry[]): BranchRead {
    if (Array.isArray(branch)) return wholeBranch(branch);
    const source = branch as TranscriptSource;
    if (source.sessionId !== this.session.ports.sessionId) {
      throw new FoldError(
        'TRANSCRIPT.WRONG_SESSION',
        `the transcript source belongs to session ${JSON.stringify(String(source.sessionId).slice(0, 80))}, not ${this.session.ports.sessionId}`,
        {
          details: { sessionId: this.session.ports.sessionId, sourceSessionId: String(source.sessionId).slice(0, 80) },
        },
      );
    }
    const index = this.session.model.index;
    return source.read({ lastEntryId: index.entries[index.length - 1]?.id, length: index.length });
  }

  /**
   * Run one of the agent's actions (docs/behaviour.md B4). Bad input is refused with a FoldError
   * and changes nothing.
   */
  async act(request: unknown, caller: ActionCaller = {}): Promise<ActionAnswer> {
    this.assertOpen();
    // Only known names become a label: a model's made-up action must not grow a metric's cardinality.
    const named = (request as { action?: unknown } | null)?.action;
    const action = (ACTION_NAMES as readonly unknown[]).includes(named) ? (named as string) : 'invalid';
    try {
      const { answer, answerBytes } = await executeAction(this.session, () => this.session.save(), request, caller);
      this.session.services.outbound.action({ action, outcome: 'answered', answerBytes });
      return answer;
    } catch (error) {
      this.session.services.outbound.action({
        action,
        outcome: 'refused',
        ...(FoldError.isInstance(error) ? { code: error.code } : {}),
        answerBytes: 0,
      });
      throw error;
    }
  }

  /**
   * What the host already knows about the requests to come (its model's context window),
   * so a session answers `status` with its budget before the first request. It replaces the
   * context stored with a restored session (a window alone keeps the stored model); a
   * request's own context replaces it.
   */
  expectRequests(context: RequestContext): void {
    const { model } = this.session;
    if (model.lastBudget !== undefined) return;
    model.expectContext(expectedRequestContext(model.memory.requestContext, context));
  }

  /**
   * The host refreshed the provider's cache without a model request of ours (Pi 1.x warms it
   * while idle): the cache is warm from `time` on, for `lifetimeMs` if the host said (docs/behaviour.md B3.3).
   */
  noteCacheWarmed(time: number, lifetimeMs?: number): void {
    this.session.services.scheduler.clock.warmed(time, lifetimeMs);
  }

  /**
   * Anchor occupancy on the provider's count for the last projection (input + cache read +
   * cache write), and count provider-side cache misses on pure appends.
   */
  recordUsage(usage: RequestUsage): void {
    const { model, services } = this.session;
    const { ledger, memory, lastContext } = model;
    const { estimator, telemetry, outbound } = services;
    const cacheClock = services.scheduler.clock;
    services.providerUsage.record({ ledger, memory, lastContext, estimator, telemetry, outbound, cacheClock }, usage);
  }

  /**
   * A person's `/fold` (`user-fold`) or a host's overflow recovery (`overflow-recovery`):
   * commit every mark at the next projection, or exactly `markIds`. The rewrite is recorded under `cause`.
   */
  requestCommit(cause: ForcedCommitCause, markIds?: readonly string[]): void {
    if (cause !== 'user-fold' && cause !== 'overflow-recovery') {
      throw new FoldError(
        'ACTION.INVALID_ARGUMENT',
        `requestCommit: cause must be user-fold or overflow-recovery, got ${JSON.stringify(String(cause)).slice(0, 60)}`,
        { details: { cause: String(cause).slice(0, 60) } },
      );
    }
    this.session.model.forceCommit(markIds === undefined ? { cause } : { markIds: new Set(markIds), cause });
  }

  /**
   * Observe what the session hands out: each projection with its ledger row, commit
   * telemetry, and coded warnings. The configured ProjectionSink is told first; an observer
   * that throws is counted (see `status`), never fails the request. Returns the unsubscribe.
   */
  subscribe(observer: ProjectionObserver): () => void {
    return subscribeObserver(this.session.services, observer);
  }

  /**
   * Close the session: the artifact writes still under way (off the request path) finish
   * first, so an evidence store disposed after this holds every artifact handed out, and so
   * do the blobs written ahead for pending marks (no write reaches a store after its dispose).
   * Then what the state holds and the store does not (the last requests' counters, the
   * provider's last count) is saved, so a reopened session counts on from where this one
   * stopped. A store that refuses that save is reported as a warning, as on the request path.
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const { services } = this.session;
    await services.spills.evidence.durable();
    await services.prewrites.settle();
    const warnings: FoldWarning[] = [];
    await this.session.saveUnsaved(warnings);
    for (const warning of warnings) services.outbound.warning(warning);
  }

  private assertOpen(): void {
    if (this.disposed)
      throw new FoldError('INVARIANT.BROKEN', `the runtime of session ${this.session.ports.sessionId} was disposed`, {
        details: { sessionId: this.session.ports.sessionId },
      });
  }
}

/** The session behind a runtime, all three parts: for the engine's own tests, not for hosts. */
export function sessionStateOf(runtime: FoldRuntime): SessionState {
  return sessionOf(runtime);
}
