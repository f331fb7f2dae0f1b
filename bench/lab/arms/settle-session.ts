import type { AgentSession } from '@mariozechner/pi-coding-agent';

const POLL_MS = 10;
/** Pi starts an overflow retry 100 ms after compaction ends; a quiet spell longer than that means done. */
const QUIET_MS = 200;

/** Wait until Pi has finished the turn and any compaction or retry it started after it. */
export async function settleSession(session: AgentSession): Promise<void> {
  let quietSince: number | undefined;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (session.isCompacting || session.isStreaming) {
      quietSince = undefined;
      continue;
    }
    quietSince ??= performance.now();
    if (performance.now() - quietSince >= QUIET_MS) return;
  }
}
