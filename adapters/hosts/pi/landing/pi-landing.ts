import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../../../core/fold-error.ts';
import type { ProjectionResult } from '../../../../core/fold-runtime.ts';
import type { ReadonlySessionManager } from '../host-api.ts';
import type { IdentifiedMessage } from '../message-entries.ts';
import type { BranchContext } from './branch-context.ts';
import { BranchReader } from './branch-reader.ts';
import { adoptEarlierRewrites, type EarlierRewrites, handedOverIsWindow } from './earlier-rewrites.ts';
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
  /** Which messages the engine is shown (pi-fold's recovery summary is not). */
  readonly shown: (message: AgentMessage) => boolean;
  readonly ctx: Pick<ExtensionContext, 'ui'>;
}

/** The transcript the engine folds on the edit path: the branch's messages as pi-fold reads them back. */
export interface LandingTranscript {
  readonly messages: readonly IdentifiedMessage[];
  /** How many leading `messages` are the previous request's, unchanged (the mapper reuses their entries). */
  readonly unchangedPrefix: number;
  /** Messages a handler before pi-fold dropped or injected, which no entry can stand for. */
  readonly unaligned: number;
}

/**
 * The landing's end of one request, handed to the engine's step: it takes the engine's
 * projection and the same as Pi messages, and returns the messages the hook must send, or
 * undefined to let Pi's projection go out as it is.
 */
export type LandWindow = (result: ProjectionResult, window: AgentMessage[]) => AgentMessage[] | undefined;

/** The engine's step of one request on the edit path: project the transcript, then land through `land`. */
export type ProjectThenLand = (transcript: LandingTranscript, land: LandWindow) => Promise<AgentMessage[] | undefined>;

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
   * One request on the edit path, start to end, in one pass: the branch read back once (at the
   * cost of what was appended), what Pi hands over compared with Pi's projection once, the
   * engine's step run on that transcript, and its window landed as session entries. Returns
   * the messages the hook must send, or undefined to let Pi's projection go out as it is.
   */
  carry(
    editing: EditingSessionManager,
    request: LandingRequest,
    projectThenLand: ProjectThenLand,
  ): Promise<AgentMessage[] | undefined> {
    const branch = this.reader.read(editing, request.shown);
    const earlier = adoptEarlierRewrites(branch, request.sent, request.shown);
    const transcript: LandingTranscript = {
      messages: earlier.rawMessages,
      unchangedPrefix: earlier.untouched ? branch.unchangedPrefix : 0,
      unaligned: earlier.unaligned,
    };
    return projectThenLand(transcript, (result, window) =>
      this.land(editing, { branch, earlier }, result, window, request),
    );
  }

  /**
   * Land what the window changed as session entries, and send nothing when Pi's own projection
   * already is the window.
   */
  private land(
    editing: EditingSessionManager,
    read: BranchAsRead,
    result: ProjectionResult,
    window: AgentMessage[],
    request: LandingRequest,
  ): AgentMessage[] | undefined {
    const { shown, ctx } = request;
    const plan = planEdits(read.branch.items, result.messages, window);
    if (plan.edits.length === 0 && plan.tailTexts.length === 0) {
      // With nothing to change, an exact plan means Pi's projection is the window: what Pi
      // hands over then goes out as it is, unless a handler before pi-fold changed it.
      if (plan.exact && handedOverIsWindow(read.earlier, request.sent, window)) {
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
      // The reader takes in what was just appended, as the next request's read would, and
      // gives that form without Pi projecting the whole branch again.
      const after = this.landedWindow(editing, shown);
      // An exact plan makes that form the window, but for an entry shown raw whose message a
      // handler before pi-fold changed: the window shows the handler's message, Pi the entry's.
      const isWindow = after.onlyLanded && read.earlier.adopted === 0;
      return isWindow || sameMessages(after.messages, window) ? after.messages : window;
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

  /**
   * Pi's projection after this request's landing, read as the next request would read it
   * (that read then starts from here).
   */
  private landedWindow(editing: EditingSessionManager, shown: (message: AgentMessage) => boolean): LandedWindow {
    const read = this.reader.read(editing, shown);
    const onlyLanded = read.unchangedPrefix > 0 && read.rawMessages.length === read.unchangedPrefix;
    // A copy: Pi owns the array the hook returns.
    return { messages: [...read.projected], onlyLanded };
  }
}

/** Pi's projection once a landing is appended. */
interface LandedWindow {
  readonly messages: AgentMessage[];
  /**
   * Whether the branch grew by the landing alone since the request's first read. Pi may append
   * what its session queue held while the engine worked, or another extension an entry: that
   * is not in the window.
   */
  readonly onlyLanded: boolean;
}

/** The branch as this request read it back, and how what Pi handed over differs from it. */
interface BranchAsRead {
  readonly branch: BranchContext;
  readonly earlier: EarlierRewrites;
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
