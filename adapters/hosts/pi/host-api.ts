import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { ExtensionContext, SessionBeforeCompactEvent } from '@mariozechner/pi-coding-agent';
import type { matchesKey, truncateToWidth } from '@mariozechner/pi-tui';
import type { TUnsafe } from 'typebox';
import { FoldError } from '../../../core/fold-error.ts';
import type { SystemMessageReplay } from './system-messages.ts';
import { Type } from './typebox-host.ts';

/** The session manager Pi hands an extension (`ctx.sessionManager`), which pi-fold only reads. */
export type ReadonlySessionManager = ExtensionContext['sessionManager'];

/**
 * Everything pi-fold needs from Pi beyond the `ExtensionAPI` it is handed, in one place, so
 * the adapter runs under both package scopes: Pi 0.x (`@mariozechner/*`, Node 20) and Pi 1.x
 * (`@earendil-works/*`, Node ≥ 22.19). The rest of the adapter imports Pi *types* only
 * (erased at run time); nothing here imports one scope statically.
 *
 * Pi's extension loader aliases `@mariozechner/*` and `typebox` to the host's own copies
 * (1.x keeps the old scope as an alias), so an extension loaded by `pi` finds the host's
 * modules under either name. An application that embeds pi-fold through the SDK resolves them
 * from its own node_modules, which hold only the scope it installed: hence the lookup below
 * tries the host's scope first and the other second.
 */

/** The npm scope a Pi host ships under. */
export type PiHostScope = '@earendil-works' | '@mariozechner';

/** Which Pi generation the context belongs to. Pi 1.x added `ctx.mode`; 0.x has only `hasUI`. */
export function hostScopeOf(ctx: object): PiHostScope {
  return 'mode' in ctx ? '@earendil-works' : '@mariozechner';
}

/**
 * A string enum as JSON schema `{type: "string", enum}` (the form every provider accepts,
 * unlike `anyOf` of consts), typed for typebox's `Static`. Pi 0.x exported this from pi-ai;
 * Pi 1.x's pi-ai returns its own schema type instead, so pi-fold builds it with typebox,
 * which both generations take for tool parameters.
 */
export function StringEnum<T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({
    type: 'string',
    enum: [...values],
    ...(options.description === undefined ? {} : { description: options.description }),
  });
}

export { Type };

/** Why Pi is compacting. */
export type CompactionReason = 'manual' | 'threshold' | 'overflow';

/**
 * The reason Pi 1.x states on `session_before_compact` (`event.reason`); undefined on Pi 0.x,
 * whose event does not say (the compaction guard then reads it from the call stack).
 */
export function statedCompactionReason(event: SessionBeforeCompactEvent): CompactionReason | undefined {
  const reason = (event as { reason?: unknown }).reason;
  return reason === 'manual' || reason === 'threshold' || reason === 'overflow' ? reason : undefined;
}

/**
 * The pi-tui helpers the fold editor draws and reads keys with; they must be the host's copy
 * (keyboard protocol state is per module).
 */
export interface TerminalText {
  readonly matchesKey: typeof matchesKey;
  readonly truncateToWidth: typeof truncateToWidth;
}

/** pi-ai's provider-error classifier, for Pi 0.x hosts whose compaction event has no reason. */
export type ContextOverflowCheck = (message: AssistantMessage, contextWindow?: number) => boolean;

/** The fold editor's terminal helpers from the host's pi-tui. @throws FoldError `HOST.PACKAGE_MISSING` */
export async function loadTerminalText(scope: PiHostScope): Promise<TerminalText> {
  const module = (await importHostPackage('pi-tui', scope)) as Partial<TerminalText>;
  if (typeof module.matchesKey !== 'function' || typeof module.truncateToWidth !== 'function')
    throw missingExport('pi-tui', scope, 'matchesKey/truncateToWidth');
  return { matchesKey: module.matchesKey, truncateToWidth: module.truncateToWidth };
}

/** pi-ai's `isContextOverflow` from the host's scope. @throws FoldError `HOST.PACKAGE_MISSING` */
export async function loadContextOverflowCheck(scope: PiHostScope): Promise<ContextOverflowCheck> {
  const module = (await importHostPackage('pi-ai', scope)) as { isContextOverflow?: ContextOverflowCheck };
  if (typeof module.isContextOverflow !== 'function') throw missingExport('pi-ai', scope, 'isContextOverflow');
  return module.isContextOverflow;
}

/**
 * pi-ai's `getCurrentSystemMessage` from the host's scope, or undefined on a Pi that has no
 * system messages (before 0.8x; its `context_with_system` event never fires either).
 */
export async function loadSystemMessageReplay(scope: PiHostScope): Promise<SystemMessageReplay | undefined> {
  const module = (await importHostPackage('pi-ai', scope)) as { getCurrentSystemMessage?: SystemMessageReplay };
  return typeof module.getCurrentSystemMessage === 'function' ? module.getCurrentSystemMessage : undefined;
}

type HostPackage = 'pi-ai' | 'pi-tui';

// One importer per scope and package. Pi's loader (jiti) and vitest resolve a dynamic import
// at run time through their aliases, so the host's copy is found under either name.
const IMPORTERS: Record<PiHostScope, Record<HostPackage, () => Promise<unknown>>> = {
  '@earendil-works': {
    'pi-ai': () => import(specifier('@earendil-works/pi-ai')),
    'pi-tui': () => import(specifier('@earendil-works/pi-tui')),
  },
  '@mariozechner': {
    'pi-ai': () => import(specifier('@mariozechner/pi-ai')),
    'pi-tui': () => import(specifier('@mariozechner/pi-tui')),
  },
};

// Typed as a plain string so the compiler does not demand that both scopes be installed.
function specifier(name: string): string {
  return name;
}

const loaded = new Map<string, Promise<unknown>>();

/** Import `@scope/name` for the host's scope, else the other scope; cached per pair. */
function importHostPackage(name: HostPackage, scope: PiHostScope): Promise<unknown> {
  const key = `${scope}/${name}`;
  let pending = loaded.get(key);
  if (pending === undefined) {
    pending = importFirst(
      name,
      scope === '@earendil-works' ? ['@earendil-works', '@mariozechner'] : ['@mariozechner', '@earendil-works'],
    );
    // A failed lookup is not cached: a later call (after an install) may succeed.
    pending.catch(() => loaded.delete(key));
    loaded.set(key, pending);
  }
  return pending;
}

async function importFirst(name: HostPackage, scopes: readonly PiHostScope[]): Promise<unknown> {
  const failures: string[] = [];
  for (const scope of scopes) {
    try {
      return await IMPORTERS[scope][name]();
    } catch (error) {
      failures.push(`${scope}/${name}: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
    }
  }
  throw new FoldError(
    'HOST.PACKAGE_MISSING',
    `pi: neither Pi scope's ${name} could be loaded (${failures.join('; ')}); install pi-fold next to @earendil-works/pi-coding-agent or @mariozechner/pi-coding-agent`,
    {
      details: { package: name, tried: scopes.map((scope) => `${scope}/${name}`) },
    },
  );
}

function missingExport(name: HostPackage, scope: PiHostScope, exportName: string): FoldError {
  return new FoldError(
    'HOST.PACKAGE_MISSING',
    `pi: ${name} loaded for a ${scope} host has no ${exportName}; this Pi version is not supported (see docs/compatibility.md)`,
    { details: { package: name, export: exportName } },
  );
}
