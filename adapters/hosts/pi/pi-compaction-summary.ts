import type { ThinkingLevel } from '@mariozechner/pi-agent-core';
import type { Context, Model } from '@mariozechner/pi-ai';
import type { CompactionResult, ExtensionContext, SessionBeforeCompactEvent } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../../core/fold-error.ts';
import type { PiHostScope } from './host-api.ts';

/**
 * Pi's own compaction summary, made by Pi's exported `compact()` from the host's
 * pi-coding-agent, so a manual `/compact` that pi-fold answers says what Pi would have said.
 *
 * The two Pi lines call it differently. Pi 0.x takes the request's API key and headers and
 * streams through pi-ai's provider registry. Pi 1.x routes through its model runtime, which
 * extensions reach as `ctx.modelRegistry.streamSimple` (authentication at request time), and
 * takes that as `compact`'s stream function. Which one applies is read once from the registry.
 */

/** Pi's result, with the usage Pi 1.x reports for the summary request. */
export type PiCompactionResult = CompactionResult & { readonly usage?: unknown };

type StreamFunction = (model: Model<never>, context: Context, options?: unknown) => unknown;

/** `compact()` under both signatures: 0.x stops after `thinkingLevel`, 1.x goes on with a stream function. */
type PiCompact = (
  preparation: SessionBeforeCompactEvent['preparation'],
  model: Model<never>,
  apiKey: string | undefined,
  headers: Record<string, string> | undefined,
  customInstructions: string | undefined,
  signal: AbortSignal,
  thinkingLevel: ThinkingLevel | undefined,
  streamFunction?: StreamFunction,
) => Promise<PiCompactionResult>;

/** Pi's summary, or why Pi's `compact()` could not write one (the caller then leaves the compaction to Pi). */
export type PiSummaryOutcome =
  | { readonly ok: true; readonly result: PiCompactionResult }
  | { readonly ok: false; readonly reason: string };

/** What one summary needs: the event, the preparation to summarise, and the host that runs it. */
export interface PiSummaryRequest {
  readonly event: SessionBeforeCompactEvent;
  readonly preparation: SessionBeforeCompactEvent['preparation'];
  readonly ctx: Pick<ExtensionContext, 'model' | 'modelRegistry'>;
  readonly thinkingLevel: ThinkingLevel | undefined;
  readonly scope: PiHostScope;
}

/** Summarise `preparation` as Pi's default compaction does. Never rejects: a failure is an outcome. */
export async function piCompactionSummary(request: PiSummaryRequest): Promise<PiSummaryOutcome> {
  const { event, preparation, ctx, thinkingLevel, scope } = request;
  const model = ctx.model as Model<never> | undefined;
  if (model === undefined) return { ok: false, reason: 'no model is selected' };
  try {
    const compact = await loadPiCompact(scope);
    const registry = ctx.modelRegistry as unknown as { streamSimple?: StreamFunction };
    const { customInstructions, signal } = event;
    if (typeof registry.streamSimple === 'function') {
      const streamSimple = registry.streamSimple.bind(registry);
      const result = await compact(
        preparation,
        model,
        undefined,
        undefined,
        customInstructions,
        signal,
        thinkingLevel,
        streamSimple,
      );
      return { ok: true, result };
    }
    const auth = await ctx.modelRegistry.getApiKeyAndHeaders(model);
    if (!auth.ok) return { ok: false, reason: `no credentials for ${model.provider} (${auth.error})` };
    const result = await compact(
      preparation,
      model,
      auth.apiKey,
      auth.headers,
      customInstructions,
      signal,
      thinkingLevel,
    );
    return { ok: true, result };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}

const loaded = new Map<PiHostScope, Promise<PiCompact>>();

/**
 * `compact` from the host's pi-coding-agent (Pi's extension loader aliases both scopes to it), else
 * the other scope's.
 */
function loadPiCompact(scope: PiHostScope): Promise<PiCompact> {
  let pending = loaded.get(scope);
  if (pending === undefined) {
    pending = importCompact(
      scope === '@earendil-works' ? ['@earendil-works', '@mariozechner'] : ['@mariozechner', '@earendil-works'],
    );
    // A failed lookup is not kept: a later /compact may find the package.
    pending.catch(() => loaded.delete(scope));
    loaded.set(scope, pending);
  }
  return pending;
}

async function importCompact(scopes: readonly PiHostScope[]): Promise<PiCompact> {
  const failures: string[] = [];
  for (const scope of scopes) {
    try {
      const module = (await import(specifier(`${scope}/pi-coding-agent`))) as { compact?: unknown };
      if (typeof module.compact === 'function') return module.compact as PiCompact;
      failures.push(`${scope}/pi-coding-agent has no compact export`);
    } catch (error) {
      failures.push(
        `${scope}/pi-coding-agent: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
      );
    }
  }
  throw new FoldError('HOST.PACKAGE_MISSING', `pi: Pi's compact() could not be loaded (${failures.join('; ')})`, {
    details: { package: 'pi-coding-agent', tried: scopes.map((scope) => `${scope}/pi-coding-agent`) },
  });
}

// Typed as a plain string so the compiler does not demand that both scopes be installed.
function specifier(name: string): string {
  return name;
}
