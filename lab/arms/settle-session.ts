import type { AgentSession } from '@mariozechner/pi-coding-agent';

const POLL_MS = 10;
/** Pi starts an overflow retry 100 ms after compaction ends; a quiet spell longer than that means done. */
const QUIET_MS = 200;
/**
 * How long a retry Pi announced may take to start before the harness calls it lost: ten times
 * the delay Pi waits. Node fires timers in the order they fall due, so once this much time has
 * passed Pi's own retry timer has already run, and a retry that has not started never will.
 */
export const RETRY_START_LIMIT_MS = 1_000;

/**
 * What a Pi session is doing, from its own events. Pi decides on compaction right after it
 * hands `agent_end` to listeners (in the same run of its event queue), and announces a retry
 * with `compaction_end { willRetry }`. So once this turn's `agent_end` has been seen, the
 * session is idle and no retry is pending, the turn is over: no quiet spell to wait out.
 *
 * The simulated provider answers without yielding to timers, so a whole agent run and a
 * compaction can pass between two polls without a poll seeing the session busy: every event
 * therefore counts as activity, not only what a poll happens to catch.
 */
export class SessionActivity {
  private runsEnded = 0;
  private runsEndedAtTurnStart = 0;
  private retry: { readonly reason: string; readonly at: number } | undefined;
  private lastActiveAt = performance.now();

  constructor(session: AgentSession) {
    session.subscribe((event) => {
      this.lastActiveAt = performance.now();
      if (event.type === 'agent_start') this.retry = undefined;
      else if (event.type === 'agent_end') this.runsEnded += 1;
      else if (event.type === 'compaction_end' && (event.willRetry || session.agent.hasQueuedMessages()))
        this.retry = { reason: event.reason, at: this.lastActiveAt };
    });
  }

  /** Call before each prompt. */
  beginTurn(): void {
    this.runsEndedAtTurnStart = this.runsEnded;
    this.retry = undefined;
    this.lastActiveAt = performance.now();
  }

  /** Note that a poll saw the session busy. */
  sawBusy(): void {
    this.lastActiveAt = performance.now();
  }

  /** Milliseconds since the session last did anything the harness could see. */
  get quietMs(): number {
    return performance.now() - this.lastActiveAt;
  }

  /** True when this turn's run has ended and no retry is pending. */
  get turnOver(): boolean {
    return this.runsEnded > this.runsEndedAtTurnStart && this.retry === undefined;
  }

  /** The retry Pi announced and has not started yet, with why (`overflow`, `threshold`) and when. */
  get pendingRetry(): { readonly reason: string; readonly waitedMs: number } | undefined {
    return this.retry === undefined
      ? undefined
      : { reason: this.retry.reason, waitedMs: performance.now() - this.retry.at };
  }
}

/**
 * How a turn settled: `failure` when work Pi said it would resume was dropped, `note` for what a
 * finished arm's result should still say.
 */
export interface Settled {
  readonly failure?: string;
  readonly note?: string;
}

/**
 * Wait until Pi has finished the turn and any compaction or retry it started after it. A turn
 * whose end Pi announced returns as soon as the session is idle; a retry Pi announced is
 * waited for (it runs to its end like the turn), and one that has not started within
 * `RETRY_START_LIMIT_MS` settles the turn with what was lost said (`lostRetry`). A prompt that
 * ran no agent (e.g. a command) settles after a quiet spell longer than Pi's retry delay.
 */
export async function settleSession(session: AgentSession, activity: SessionActivity): Promise<Settled> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (session.isCompacting || session.isStreaming) {
      activity.sawBusy();
      continue;
    }
    if (activity.turnOver) return {};
    const retry = activity.pendingRetry;
    if (retry !== undefined) {
      if (retry.waitedMs >= RETRY_START_LIMIT_MS) return lostRetry(session, retry.reason);
      continue;
    }
    if (activity.quietMs >= QUIET_MS) return {};
  }
}

/**
 * Close a session so that nothing of it runs after the arm: wait out a retry Pi announced (it
 * may still start), stop whatever runs, then dispose. Pi's retry timer cannot be cancelled
 * from outside, and a retry started after the arm would bill its requests, draw seeded ids
 * and read the lab clock inside the next arm.
 */
export async function closeSession(session: AgentSession, activity: SessionActivity | undefined): Promise<void> {
  while (activity?.pendingRetry !== undefined && activity.pendingRetry.waitedMs < RETRY_START_LIMIT_MS)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  await session.abort();
  session.dispose();
}

/**
 * A retry Pi announced and never started. When the transcript ends with the model's own final
 * reply, the turn had already ended and nothing was dropped: Pi 0.73.1 takes such a reply for
 * an overflow when its prompt is over the window Pi was told of, compacts and announces a retry
 * that cannot continue from a finished reply (later Pi compacts without announcing one). The
 * arm finished, and its result says what Pi did. Any other ending lost work: the arm failed.
 */
function lostRetry(session: AgentSession, reason: string): Settled {
  const said = `Pi announced a retry after ${reason} compaction that did not start within ${RETRY_START_LIMIT_MS} ms`;
  const last = session.agent.state.messages.at(-1);
  if (last?.role === 'assistant' && last.stopReason === 'stop')
    return { note: `${said}; the turn had already ended with the model's final reply, which Pi cannot continue from` };
  return { failure: `${said}; the turn's work after the compaction was dropped` };
}
