import type { AgentSession } from '@mariozechner/pi-coding-agent';

const POLL_MS = 10;
/** Pi starts an overflow retry 100 ms after compaction ends; a quiet spell longer than that means done. */
const QUIET_MS = 200;

/**
 * What a Pi session is doing, from its own events. Pi decides on compaction right after it
 * hands `agent_end` to listeners (in the same run of its event queue), and announces a retry
 * with `compaction_end { willRetry }`. So once this turn's `agent_end` has been seen, the
 * session is idle and no retry is announced, the turn is over: no quiet spell to wait out.
 */
export class SessionActivity {
  private runsEnded = 0;
  private runsEndedAtTurnStart = 0;
  private retryAnnounced = false;

  constructor(session: AgentSession) {
    session.subscribe((event) => {
      if (event.type === 'agent_start') this.retryAnnounced = false;
      else if (event.type === 'agent_end') this.runsEnded += 1;
      else if (event.type === 'compaction_end' && (event.willRetry || session.agent.hasQueuedMessages()))
        this.retryAnnounced = true;
    });
  }

  /** Call before each prompt. */
  beginTurn(): void {
    this.runsEndedAtTurnStart = this.runsEnded;
    this.retryAnnounced = false;
  }

  /** True when this turn's run has ended and nothing further was announced. */
  get turnOver(): boolean {
    return this.runsEnded > this.runsEndedAtTurnStart && !this.retryAnnounced;
  }
}

/**
 * Wait until Pi has finished the turn and any compaction or retry it started after it. With
 * `activity`, a turn whose end Pi announced returns as soon as the session is idle; without
 * it (or for a prompt that ran no agent, e.g. a command) a quiet spell longer than Pi's retry
 * delay decides.
 */
export async function settleSession(session: AgentSession, activity?: SessionActivity): Promise<void> {
  let quietSince: number | undefined;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (session.isCompacting || session.isStreaming) {
      quietSince = undefined;
      continue;
    }
    if (activity?.turnOver === true) return;
    quietSince ??= performance.now();
    if (performance.now() - quietSince >= QUIET_MS) return;
  }
}
