import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';
import { assertOnOffOption } from '../../../composition/option-checks.ts';
import { preloadOptionalPeers } from '../../../composition/preload-optional-peers.ts';
import { noteWarmingDecision, onCacheWarming } from './cache-warming.ts';
import { registerFoldCommands } from './commands.ts';
import { answerCompaction, answerManualCompaction, CompactionClassifier, currentStack } from './compaction-guard.ts';
import { OverheadMeter, projectContext, requestModel } from './context-hook.ts';
import { createFoldTool } from './fold-tool.ts';
import { hostScopeOf, loadSystemMessageReplay } from './host-api.ts';
import { announceOwnership } from './ownership-monitor.ts';
import { checkedToolOffer, PiToolOffer } from './pi-tool-offer.ts';
import { type ProjectionCandidate, projectionCandidates } from './projection-candidates.ts';
import { type PiFoldOptions, PiSessionRegistry } from './session-registry.ts';
import { onContextWithSystem, PiSystemMessages } from './system-messages.ts';

/** The Pi event-bus channel that carries every commit's telemetry (`pi.events.on(COMMIT_TELEMETRY_CHANNEL, …)`). */
export const COMMIT_TELEMETRY_CHANNEL = 'pi-fold:commit';

/** What `registerPiFold` hands back to a host that embeds it. */
export interface PiFoldRegistration {
  /** docs/behaviour.md B6.5: one record per visible collapsed fold of the context's session. */
  readonly projectionCandidates: (ctx: Pick<ExtensionContext, 'sessionManager'>) => Promise<ProjectionCandidate[]>;
  /** The per-session runtimes (tests, hosts that show more than the commands do). */
  readonly sessions: PiSessionRegistry;
}

/**
 * Install pi-fold into a Pi extension API: the context hook that drives the engine, the
 * agent's `pi_fold_context` tool, compaction interception and the human commands. Oversized
 * tool results and arguments are spilled by the engine as it ingests them (docs/behaviour.md B6.2): Pi's
 * session keeps every result exactly as the tool produced it. Nothing needs configuring; `options`
 * exist for hosts and tests.
 */
export function registerPiFold(pi: ExtensionAPI, options: PiFoldOptions = {}): PiFoldRegistration {
  // Checked before anything is loaded or registered: a wrong option leaves Pi without a half-installed pi-fold.
  assertOnOffOption(options.openTelemetry, 'openTelemetry', 'registerPiFold');
  // Pi loads extensions at start-up, long before the first request: load the optional peers now.
  if (options.openTelemetry !== false) preloadOptionalPeers();
  // Hosts log commits from Pi's event bus without importing pi-fold (older Pi has no bus).
  const sessions = new PiSessionRegistry(options, (folding) =>
    folding.runtime.subscribe({ acceptCommitTelemetry: (event) => pi.events?.emit(COMMIT_TELEMETRY_CHANNEL, event) }),
  );
  // Checked before any handler is registered: a wrong option leaves Pi without a half-installed pi-fold.
  const toolOffer = new PiToolOffer(pi, checkedToolOffer(options.toolOffer));
  const classifier = new CompactionClassifier();
  onEachRequest(pi, sessions);
  onTurns(pi, sessions, classifier, toolOffer);
  onCompactions(pi, sessions, classifier);
  onProviderAndLifecycle(pi, sessions);
  onModelKnown(pi, sessions);
  pi.registerTool(createFoldTool(sessions));
  registerFoldCommands(pi, sessions);
  return {
    projectionCandidates: async (ctx) =>
      projectionCandidates((await sessions.forSession(ctx.sessionManager)).runtime.view),
    sessions,
  };
}

/**
 * The request path: the context hook that drives the engine, Pi's system messages put back, and the
 * provider's usage recorded.
 */
function onEachRequest(pi: ExtensionAPI, sessions: PiSessionRegistry): void {
  const overhead = new OverheadMeter(
    () => pi.getAllTools(),
    () => pi.getActiveTools(),
  );
  const systemMessages = new PiSystemMessages();
  const standingDown = new Set<string>();
  // Sessions whose last request the context hook left as Pi built it (its own projection, or another pi-fold's).
  const untouched = new WeakSet<object>();
  pi.on('context', async (event, ctx) => {
    const sessionId = ctx.sessionManager.getSessionId();
    if (!sessions.claimSession(ctx.sessionManager)) {
      // Another pi-fold already folds this session: two would land their windows over each other.
      if (!standingDown.has(sessionId))
        ctx.ui.notify('pi-fold is loaded twice; this copy leaves the session to the one that folds it', 'warning');
      standingDown.add(sessionId);
      untouched.add(ctx.sessionManager);
      return undefined;
    }
    const folding = await sessions.forSession(ctx.sessionManager);
    const messages = await projectContext(folding, event.messages, ctx, overhead.measure(ctx));
    if (messages !== undefined && folding.lastProjection !== undefined)
      systemMessages.remember(messages, folding.lastProjection.messages);
    if (messages === undefined) untouched.add(ctx.sessionManager);
    else untouched.delete(ctx.sessionManager);
    return messages === undefined ? undefined : { messages };
  });
  // Pi >= 0.8x: put Pi's own system messages back where its rebuilt head replaced them. This is
  // a second hook on the same request's window, and it has to be: Pi hides its system messages
  // from `context` handlers and rebuilds the head only after all of them ran, so only this later
  // event holds them. Folding here instead would run pi-fold after every other extension's
  // `context` handler rather than in its loading order. It only acts when the hook above
  // returned messages of its own.
  onContextWithSystem(pi, async (event, ctx) => {
    // Pi's messages went out as Pi built them: its system messages are where Pi put them.
    if (untouched.has(ctx.sessionManager)) return undefined;
    const replay = await loadSystemMessageReplay(hostScopeOf(ctx));
    return replay === undefined ? undefined : systemMessages.restore(event.messages, ctx.sessionManager, replay);
  });
  pi.on('message_end', async (event, ctx) => {
    const message = event.message;
    if (message.role !== 'assistant' || message.stopReason === 'error' || message.stopReason === 'aborted') return;
    const folding = await sessions.existing(ctx.sessionManager.getSessionId());
    const { input, output, cacheRead, cacheWrite } = message.usage;
    folding?.runtime.recordUsage({ input, output, cacheRead, cacheWrite });
  });
}

/** Turn boundaries: what tells a manual /compact from Pi's own, and when the fold tool is offered. */
function onTurns(
  pi: ExtensionAPI,
  sessions: PiSessionRegistry,
  classifier: CompactionClassifier,
  toolOffer: PiToolOffer,
): void {
  pi.on('input', (event) => {
    classifier.onAutomaticCheckPossible(event.text);
    return undefined;
  });
  pi.on('agent_end', () => classifier.onAutomaticCheckPossible());
  pi.on('before_agent_start', async (_event, ctx) => {
    classifier.onAgentStart();
    // Pi rebuilds the turn's system prompt and tool list after this event, so a change made here applies to this turn.
    if (toolOffer.policy !== 'always') toolOffer.beforeTurn(await sessions.forSession(ctx.sessionManager));
  });
  pi.on('agent_start', () => classifier.onAgentStart());
}

/** Compaction: Pi's own is answered by folding; the person's /compact goes ahead, listing the folds it summarises. */
function onCompactions(pi: ExtensionAPI, sessions: PiSessionRegistry, classifier: CompactionClassifier): void {
  pi.on('session_before_compact', async (event, ctx) => {
    // Before any await: on Pi 0.x the calling frame on the stack is the only sign of the reason.
    const kind = await classifier.classify(event, ctx, currentStack());
    if (kind === 'manual') {
      // The person's own /compact goes ahead; the compaction that follows is not a bypass.
      const folding = await sessions.forSession(ctx.sessionManager);
      folding.ownership.allowManualCompaction();
      return answerManualCompaction(event, folding, ctx, pi.getThinkingLevel());
    }
    return answerCompaction(kind, event, await sessions.forSession(ctx.sessionManager), ctx);
  });
  pi.on('session_compact', async (event, ctx) => {
    const folding = await sessions.existing(ctx.sessionManager.getSessionId());
    announceOwnership(ctx, folding?.ownership.compacted(event.compactionEntry, folding.lastProjection?.ledger.request));
  });
}

/**
 * The model's window as soon as Pi names the model (the session starts, the person switches
 * model), so status, the editor and the agent see the budget before the next request does.
 */
function onModelKnown(pi: ExtensionAPI, sessions: PiSessionRegistry): void {
  pi.on('session_start', async (_event, ctx) => {
    await sessions.expectRequests(ctx.sessionManager.getSessionId(), requestModel(ctx));
  });
  pi.on('model_select', async (event, ctx) => {
    await sessions.expectRequests(ctx.sessionManager.getSessionId(), requestModel({ model: event.model }));
  });
}

/** The request body's ownership check, idle cache refreshes, and the sessions' last writes at shutdown. */
function onProviderAndLifecycle(pi: ExtensionAPI, sessions: PiSessionRegistry): void {
  // Registering this is what makes Pi hand each provider request body to extensions.
  pi.on('before_provider_request', async (event, ctx) => {
    const folding = await sessions.existing(ctx.sessionManager.getSessionId());
    announceOwnership(ctx, folding?.ownership.checkPayload(event.payload));
    return undefined;
  });
  // Pi 1.x refreshes the provider's cache while idle; a refresh keeps it warm (docs/behaviour.md
  // B3.3). Pi 0.x never fires this.
  onCacheWarming(pi, async (event, ctx) => {
    const folding = await sessions.existing(ctx.sessionManager.getSessionId());
    if (folding !== undefined) noteWarmingDecision(folding.runtime, event, Date.now());
  });
  pi.on('session_shutdown', async () => {
    await sessions.closeAll();
  });
}
