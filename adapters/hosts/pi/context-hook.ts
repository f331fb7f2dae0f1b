import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../../core/fold-error.ts';
import type { ProjectionResult, RequestContext } from '../../../core/fold-runtime.ts';
import { isRecoverySummary } from './compaction-guard.ts';
import { workingLanding } from './landing/pi-landing.ts';
import type { MappedTranscript } from './message-entries.ts';
import { announceOwnership } from './ownership-monitor.ts';
import { toPiMessages } from './projected-messages.ts';
import type { PiSessionFolding } from './session-registry.ts';

/** Measures what Pi sends around the messages (system prompt, tool schemas), cached per tool set. */
export class OverheadMeter {
  private toolKey = '';
  private toolChars = 0;

  constructor(
    private readonly toolSchemas: () => readonly { name: string; description?: string; parameters?: unknown }[],
    private readonly activeTools: () => readonly string[],
  ) {}

  measure(ctx: ExtensionContext): number {
    const active = this.activeTools();
    const key = active.join('\u0000');
    if (key !== this.toolKey) {
      const names = new Set(active);
      this.toolChars = this.toolSchemas()
        .filter((tool) => names.has(tool.name))
        .reduce(
          (sum, tool) =>
            sum + tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters ?? {}).length,
          0,
        );
      this.toolKey = key;
    }
    return ctx.getSystemPrompt().length + this.toolChars;
  }
}

/**
 * The `context` hook's work: map Pi's messages to the branch's entries, let the engine
 * project them, and hand the projection back as Pi messages. Called before every model call.
 * One pass per request: the branch is read and mapped once (`mapHandedOver` says when Pi makes
 * a second mapping necessary), and on the edit path the landing is entered once and runs the
 * engine's step inside it (`PiLanding.carry`).
 *
 * When no lossless fold can bring the request under the budget (docs/behaviour.md I6), the request is
 * aborted before it is sent and the person is told out of band; the window is not touched.
 */
export async function projectContext(
  folding: PiSessionFolding,
  messages: readonly AgentMessage[],
  ctx: ExtensionContext,
  overheadChars: number,
): Promise<AgentMessage[] | undefined> {
  const landing = workingLanding(folding.landing);
  const editing = landing.editing(ctx.sessionManager);
  const request = { ctx, overheadChars };
  if (editing === undefined) {
    const mapped = await mapHandedOver(folding, messages.filter(isShownToEngine), ctx);
    return projectAndSend(folding, { mapped, unaligned: 0 }, request, (_result, window) => window);
  }
  // The edit path reads the branch itself: Pi's event already carries the folded window.
  return landing.carry(editing, { sent: messages, shown: isShownToEngine, ctx }, (transcript, land) => {
    const mapped = folding.mapper.mapIdentified(transcript.messages, transcript.unchangedPrefix);
    return projectAndSend(folding, { mapped, unaligned: transcript.unaligned }, request, land);
  });
}

/**
 * The hook path's transcript: the event's messages matched to the branch's entries. Mapped
 * again only in the one case Pi makes it necessary: Pi writes agent events to the session
 * through a queue its loop does not await, so the last results of a tool batch can reach the
 * branch a tick after this event. Mapped as injected now, they would get their real ids next
 * request: a needless rewrite. When the tick brought nothing (the messages were another
 * extension's), the first mapping stands.
 */
async function mapHandedOver(
  folding: PiSessionFolding,
  visible: readonly AgentMessage[],
  ctx: ExtensionContext,
): Promise<MappedTranscript> {
  const leafId = ctx.sessionManager.getLeafId();
  const mapped = folding.mapper.map(visible, ctx.sessionManager.getBranch());
  if (mapped.unmatched === 0) return mapped;
  await new Promise((resolve) => setImmediate(resolve));
  if (ctx.sessionManager.getLeafId() === leafId) return mapped;
  return folding.mapper.map(visible, ctx.sessionManager.getBranch());
}

/** What one request's engine step needs besides the transcript. */
interface EngineRequest {
  readonly ctx: ExtensionContext;
  readonly overheadChars: number;
}

/**
 * The engine's step of one request: report what a handler before pi-fold rewrote, project,
 * and hand the window to `send` (the landing on the edit path, the hook's return value on the
 * hook path). The request number is the engine's own, the one its ledger row will carry.
 */
async function projectAndSend(
  folding: PiSessionFolding,
  transcript: { readonly mapped: MappedTranscript; readonly unaligned: number },
  request: EngineRequest,
  send: (result: ProjectionResult, window: AgentMessage[]) => AgentMessage[] | undefined,
): Promise<AgentMessage[] | undefined> {
  const { mapped } = transcript;
  const { ctx } = request;
  const rewrittenBefore = folding.ownership.rewrittenBefore(
    mapped.rewritten + transcript.unaligned,
    folding.runtime.nextRequest,
  );
  announceOwnership(ctx, rewrittenBefore);
  try {
    folding.branch.update(mapped.entries);
    const result = await folding.runtime.project(folding.branch, {
      ...requestModel(ctx),
      overheadChars: request.overheadChars,
      requestTime: Date.now(),
    });
    folding.lastProjection = result;
    for (const warning of result.warnings) ctx.ui.notify(warning, 'warning');
    const projected = toPiMessages(result.messages, mapped.messages);
    folding.ownership.projected(projected, result.ledger.request);
    return send(result, projected);
  } catch (error) {
    if (FoldError.isInstance(error) && error.code === 'BUDGET.EXCEEDED') {
      const remedy =
        typeof error.details?.remedy === 'string' ? error.details.remedy : 'unpin entries, or start a new session';
      ctx.ui.notify(`pi-fold refused to send the request: ${error.message}. To go on: ${remedy}.`, 'error');
      // Aborting here cancels the request before the provider sees it.
      ctx.abort();
      return undefined;
    }
    ctx.ui.notify(
      `pi-fold could not project the window: ${error instanceof Error ? error.message : String(error)}`,
      'error',
    );
    throw error;
  }
}

/**
 * Our own overflow-recovery compaction keeps every entry; its summary is a note for the
 * person and the session file, not something the model needs at the top of its window.
 */
function isShownToEngine(message: AgentMessage): boolean {
  return !(message.role === 'compactionSummary' && isRecoverySummary(message.summary));
}

/** The model this request goes to: its window, and its id for a budget keyed by model. */
export function requestModel(ctx: Pick<ExtensionContext, 'model'>): RequestContext {
  const model = ctx.model;
  if (model === undefined) return {};
  return {
    ...(model.contextWindow === undefined ? {} : { contextWindow: model.contextWindow }),
    model: { id: model.id, provider: model.provider },
  };
}
