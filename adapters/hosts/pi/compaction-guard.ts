import type { ThinkingLevel } from '@mariozechner/pi-agent-core';
import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { ExtensionContext, SessionBeforeCompactEvent, SessionEntry } from '@mariozechner/pi-coding-agent';
import { foldListText, foldsBehindCut, withoutFoldList } from './compaction-fold-list.ts';
import { type CompactionReason, hostScopeOf, loadContextOverflowCheck, statedCompactionReason } from './host-api.ts';
import { piCompactionSummary } from './pi-compaction-summary.ts';
import { PI_TOOL_NAME, type PiSessionFolding } from './session-registry.ts';

/** What a `session_before_compact` handler may return (not exported by Pi's index; `usage` is Pi 1.x's). */
export interface SessionBeforeCompactResult {
  readonly cancel?: boolean;
  readonly compaction?: {
    summary: string;
    firstKeptEntryId: string;
    tokensBefore: number;
    details?: unknown;
    usage?: unknown;
  };
}

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

/**
 * docs/behaviour.md B6.1, I2. A person's `/compact` goes ahead with Pi's own summary, and the
 * summary ends with every fold the cut summarises away (id, brief, how to peek it), so the
 * model still knows each fold after the cut; their exact sources stay in the store. Without
 * folds behind the cut there is nothing to add and Pi compacts alone. When Pi's `compact()`
 * cannot write the summary here, Pi is left to try itself, and the person is told the folds
 * are not listed.
 */
export async function answerManualCompaction(
  event: SessionBeforeCompactEvent,
  folding: PiSessionFolding,
  ctx: ExtensionContext,
  thinkingLevel: ThinkingLevel | undefined,
): Promise<SessionBeforeCompactResult | undefined> {
  const { preparation } = event;
  const folds = foldsBehindCut(folding.runtime.view.lattice, event.branchEntries, preparation.firstKeptEntryId);
  if (folds.length === 0) return undefined;
  // The list this summary replaces is written afresh below; the summariser need not copy it.
  const previousSummary =
    preparation.previousSummary === undefined ? undefined : withoutFoldList(preparation.previousSummary);
  const outcome = await piCompactionSummary({
    event,
    preparation: { ...preparation, ...(previousSummary === undefined ? {} : { previousSummary }) },
    ctx,
    thinkingLevel,
    scope: hostScopeOf(ctx),
  });
  if (!outcome.ok) {
    if (!event.signal.aborted)
      ctx.ui.notify(
        `pi-fold could not write the summary of this /compact (${outcome.reason}); Pi compacts on its own, and its summary does not list the ${folds.length} fold(s) behind the cut (they stay in the store: /fold-status tree lists them).`,
        'warning',
      );
    return undefined;
  }
  const { result } = outcome;
  const foldIds = folds.map(({ record }) => record.id);
  return {
    compaction: {
      summary: `${result.summary}\n\n${foldListText(folds, PI_TOOL_NAME)}`,
      firstKeptEntryId: result.firstKeptEntryId,
      tokensBefore: result.tokensBefore,
      details: { ...asRecord(result.details), piFold: 'manual-compaction', foldsBehindCut: foldIds },
      ...(result.usage === undefined ? {} : { usage: result.usage }),
    },
  };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

function lastAssistant(entries: readonly SessionEntry[]): AssistantMessage | undefined {
  for (let position = entries.length - 1; position >= 0; position -= 1) {
    const entry = entries[position]!;
    if (entry.type === 'message' && entry.message.role === 'assistant') return entry.message;
  }
  return undefined;
}
