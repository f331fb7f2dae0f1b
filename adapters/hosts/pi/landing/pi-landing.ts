import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../../../core/fold-error.ts';
import type { ProjectionResult } from '../../../../core/fold-runtime.ts';
import type { ReadonlySessionManager } from '../host-api.ts';
import { type BranchContext, projectedMessages } from './branch-context.ts';
import { BranchReader } from './branch-reader.ts';
import { planEdits } from './edit-plan.ts';
import { type EditingSessionManager, editingSessionManager } from './editing-session.ts';
import { landEdits, sameMessages } from './land-edits.ts';

/**
 * How a commit reaches Pi (docs/architecture.md, "Pi"): `context-hook` sends the engine's
 * window from the `context` event before every request; `session-edits` writes it into the
 * session as Pi's own `context_edit` entries, so Pi's projection is the folded window.
 */
export type LandingStrategy = 'context-hook' | 'session-edits';

/** The `landing` option: a strategy, or `auto` (edits where the host has them). */
export type LandingOption = 'auto' | LandingStrategy;

export const LANDING_OPTIONS: readonly LandingOption[] = ['auto', 'context-hook', 'session-edits'];

/** Refuses a `landing` option that is not one of LANDING_OPTIONS, by name, at registration. */
export function assertLandingOption(value: unknown): asserts value is LandingOption | undefined {
  if (value === undefined || (LANDING_OPTIONS as readonly unknown[]).includes(value)) return;
  throw new FoldError(
    'SETTINGS.INVALID',
    `registerPiFold: landing must be one of ${LANDING_OPTIONS.map((option) => `"${option}"`).join(', ')}, not ${JSON.stringify(value)}`,
    { details: { option: 'landing' } },
  );
}

/** What the edit path did so far in one session (status, the lab). */
export interface LandingCounters {
  /** Requests Pi sent from its own projection, the hook only checking it. */
  sentByPi: number;
  /** Requests the hook sent the window for (a landing request, or a window edits cannot express). */
  sentByHook: number;
  /** Landings that appended entries, and how many edits and custom messages they appended. */
  landings: number;
  edits: number;
  inserts: number;
}

/** What the `context` event of one request handed over. */
export interface LandingRequest {
  /** The messages Pi is about to send (the event's). */
  readonly sent: readonly AgentMessage[];
  /** Whether `sent` was checked to be Pi's own projection, untouched by another handler. */
  readonly sentIsProjection: boolean;
  /** Which messages the engine is shown (pi-fold's recovery summary is not). */
  readonly shown: (message: AgentMessage) => boolean;
  readonly ctx: Pick<ExtensionContext, 'ui'>;
}

/** What a host or the lab may read of one session's landing: the path taken and the edit path's counts. */
export interface PiLandingReport {
  readonly option: LandingOption;
  /** The path the session takes, once its first request has shown the host (undefined before). */
  readonly used: LandingStrategy | undefined;
  readonly counters: Readonly<LandingCounters>;
}

/** One session's landing: which path it takes, and the edit path's work. */
export class PiLanding implements PiLandingReport {
  private chosen: LandingStrategy | undefined;
  private refusalShown = false;
  readonly counters: LandingCounters = { sentByPi: 0, sentByHook: 0, landings: 0, edits: 0, inserts: 0 };

  /** The edit path's reader of the branch, which costs what was appended since the last request. */
  readonly reader = new BranchReader();

  constructor(readonly option: LandingOption) {}

  /** The path the session takes, once its first request has shown the host (undefined before). */
  get used(): LandingStrategy | undefined {
    return this.chosen;
  }

  /**
   * The session manager to land through, or undefined for the `context`-hook path.
   * @throws FoldError `SETTINGS.INVALID` when `session-edits` is asked of a Pi without context edits
   */
  editing(sessionManager: ReadonlySessionManager): EditingSessionManager | undefined {
    if (this.option === 'context-hook') {
      this.chosen = 'context-hook';
      return undefined;
    }
    const editing = editingSessionManager(sessionManager);
    if (editing === undefined && this.option === 'session-edits')
      throw new FoldError(
        'SETTINGS.INVALID',
        'landing "session-edits" needs a Pi with context edits (0.87 or later); use "auto" or "context-hook" on this Pi',
        { details: { option: 'landing' } },
      );
    this.chosen = editing === undefined ? 'context-hook' : 'session-edits';
    return editing;
  }

  /**
   * The edit path's end of a request: land what the window changed as session entries, and
   * send nothing when Pi's own projection already is the window. Returns the messages the
   * hook must send, or undefined to let Pi's projection go out as it is.
   */
  land(
    editing: EditingSessionManager,
    branch: BranchContext,
    result: ProjectionResult,
    window: AgentMessage[],
    request: LandingRequest,
  ): AgentMessage[] | undefined {
    const { shown, ctx } = request;
    const plan = planEdits(branch.items, result.messages, window);
    if (plan.edits.length === 0 && plan.tailTexts.length === 0) {
      // With nothing to change, an exact plan means Pi's projection is the window: what Pi
      // hands over then goes out as it is, unless a handler before pi-fold changed it.
      if (plan.exact && (request.sentIsProjection || sameMessages(request.sent, window))) {
        this.counters.sentByPi += 1;
        return undefined;
      }
      this.counters.sentByHook += 1;
      return window;
    }
    try {
      const landed = landEdits(editing, plan, result.ledger.request, foldsShown(result));
      this.counters.landings += 1;
      this.counters.edits += landed.edits;
      this.counters.inserts += landed.inserts;
      this.counters.sentByHook += 1;
      if (!plan.exact) return window;
      // Pi built this request before the edits were appended, so it goes out from here, in
      // the exact form Pi's projection gives every later request (a landed text carries its
      // own entry's timestamp): the next request then extends this one byte for byte (I1).
      const landedWindow = projectedMessages(editing, shown);
      return sameMessages(landedWindow, window) ? landedWindow : window;
    } catch (error) {
      // The window still goes out whole from this hook: a refused edit costs speed, not content.
      if (!this.refusalShown)
        ctx.ui.notify(
          `pi-fold could not write its folds into the session (${error instanceof Error ? error.message : String(error)}); it sends the folded window itself instead`,
          'warning',
        );
      this.refusalShown = true;
      this.counters.sentByHook += 1;
      return window;
    }
  }
}

/** The folds a window shows, in order, once each: its placeholders' and stubs' folds. */
function foldsShown(result: ProjectionResult): string[] {
  const folds = new Set<string>();
  for (const message of result.messages)
    if ((message.kind === 'synthetic' || message.kind === 'stub') && message.foldId !== undefined)
      folds.add(message.foldId);
  return [...folds];
}

/**
 * The working landing behind a session's report. The registry only ever puts a PiLanding
 * there; the check keeps a hand-built PiSessionFolding from reaching the edit path.
 */
export function workingLanding(report: PiLandingReport): PiLanding {
  if (report instanceof PiLanding) return report;
  throw new FoldError('INVARIANT.BROKEN', 'this session was not opened by PiSessionRegistry: its landing cannot land');
}
