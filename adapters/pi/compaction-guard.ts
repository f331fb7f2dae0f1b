import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { ExtensionContext, SessionBeforeCompactEvent, SessionEntry } from '@mariozechner/pi-coding-agent';
import { type CompactionReason, hostScopeOf, loadContextOverflowCheck, statedCompactionReason } from './host-api.ts';

/** What a `session_before_compact` handler may return (not exported by Pi's index). */
export interface SessionBeforeCompactResult {
  readonly cancel?: boolean;
  readonly compaction?: { summary: string; firstKeptEntryId: string; tokensBefore: number; details?: unknown };
}

import type { PiSessionFolding } from './session-registry.ts';

/** How the summary of our overflow-recovery compaction starts; the context hook drops it from the window. */
export const RECOVERY_SUMMARY_MARK = '[pi-fold overflow recovery]';

export function isRecoverySummary(summary: string): boolean {
  return summary.startsWith(RECOVERY_SUMMARY_MARK);
}

/** Which compaction Pi is about to run. */
export type CompactionKind = CompactionReason;

/**
 * Pi 1.x states why it compacts (`event.reason`), and that answer is taken as is. Pi 0.x's
 * event does not say, so there the caller is read from the stack: Pi runs automatic
 * (threshold and overflow) compaction in `_runAutoCompaction` and a manual `/compact` or
 * `ctx.compact()` in `compact`. Capture the stack synchronously at the top of the handler,
 * before any await, while Pi's frame is still on it. When the stack names neither, the
 * fallback is the event order: Pi's automatic checks run right after `agent_end` or right
 * after `input`, once each. An automatic one is an overflow when pi-ai's own classifier
 * says the last reply was a context-overflow error.
 */
export class CompactionClassifier {
  private automaticWindow = false;

  /** Call from `agent_end` and `input` (unless the input is `/compact`): an automatic check may follow. */
  onAutomaticCheckPossible(text?: string): void {
    this.automaticWindow = text === undefined || !text.trimStart().startsWith('/compact');
  }

  /** Call from `before_agent_start` and `agent_start`: Pi's checks for that run are over. */
  onAgentStart(): void {
    this.automaticWindow = false;
  }

  /** Read the caller from the stack; returns undefined when the stack does not tell. */
  static callerOf(stack: string | undefined): 'automatic' | 'manual' | undefined {
    if (stack === undefined) return undefined;
    if (stack.includes('_runAutoCompaction')) return 'automatic';
    if (/AgentSession\.compact\b/.test(stack)) return 'manual';
    return undefined;
  }

  async classify(
    event: SessionBeforeCompactEvent,
    ctx: ExtensionContext,
    stack: string | undefined,
  ): Promise<CompactionKind> {
    const caller = CompactionClassifier.callerOf(stack) ?? (this.automaticWindow ? 'automatic' : 'manual');
    this.automaticWindow = false;
    const stated = statedCompactionReason(event);
    if (stated !== undefined) return stated;
    if (caller === 'manual') return 'manual';
    const last = lastAssistant(event.branchEntries);
    if (last === undefined || last.stopReason !== 'error') return 'threshold';
    const isContextOverflow = await loadContextOverflowCheck(hostScopeOf(ctx));
    return isContextOverflow(last, ctx.model?.contextWindow) ? 'overflow' : 'threshold';
  }
}

/** The current stack with room for Pi's frames. */
export function currentStack(): string | undefined {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 60;
  const stack = new Error().stack;
  Error.stackTraceLimit = limit;
  return stack;
}

/**
 * docs/behaviour.md B6.1. Threshold compaction is cancelled: folding keeps the window under its own band and
 * a commit lands first. An overflow becomes a recovery: every pending mark is committed, and
 * Pi's retry goes out with the folded window. Pi only retries after a compaction entry is
 * written, so the recovery writes one that keeps every entry (nothing is summarised away);
 * its summary is the one notice, and the context hook keeps it out of the model's window.
 */
export function answerCompaction(
  kind: CompactionKind,
  event: SessionBeforeCompactEvent,
  folding: PiSessionFolding | undefined,
  ctx: ExtensionContext,
): SessionBeforeCompactResult | undefined {
  if (kind === 'manual' || folding === undefined) return undefined;
  if (kind === 'threshold') return { cancel: true };
  const first = event.branchEntries[0];
  if (first === undefined) return undefined;
  folding.runtime.requestCommit('overflow-recovery');
  const marks = folding.runtime.view.memory.marks.length;
  const summary = `${RECOVERY_SUMMARY_MARK} The provider refused the prompt as too long. pi-fold committed ${marks} pending fold${marks === 1 ? '' : 's'} and retried; nothing was summarised and every entry is kept (folded material stays exact in the fold store).`;
  ctx.ui.notify(
    'pi-fold: the provider refused the prompt as too long; pending folds were committed and the request is retried.',
    'warning',
  );
  return {
    compaction: {
      summary,
      firstKeptEntryId: first.id,
      tokensBefore: event.preparation.tokensBefore,
      details: { piFold: 'overflow-recovery', marksCommitted: marks },
    },
  };
}

function lastAssistant(entries: readonly SessionEntry[]): AssistantMessage | undefined {
  for (let position = entries.length - 1; position >= 0; position -= 1) {
    const entry = entries[position]!;
    if (entry.type === 'message' && entry.message.role === 'assistant') return entry.message;
  }
  return undefined;
}
