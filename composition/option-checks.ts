import { statSync } from 'node:fs';
import { FoldError } from '../core/fold-error.ts';
import { assertSafeId } from '../core/store/store-keys.ts';
import type { StoreSelectionOptions } from './store-selection.ts';

/**
 * Checks on the options object a host hands to `createFoldRuntime` or `createFolding`, run
 * before anything is built: a misspelt option, an option that the chosen store would ignore,
 * or a path of the wrong kind is refused by name, and no store is opened.
 */

/** Every option `createFoldRuntime` reads; anything else is a mistake worth naming. */
export const RUNTIME_OPTION_KEYS = [
  'sessionId',
  'settings',
  'evidenceStore',
  'costModel',
  'projectionSink',
  'openTelemetry',
  'scope',
  'store',
  'storeRoot',
  'sqlitePath',
  'evidenceCapBytes',
  'sessionCapBytes',
  'storeCapBytes',
] as const;

/** Options `createFoldRuntime` once read, refused with what to write now. */
const REMOVED_RUNTIME_OPTIONS: Readonly<Record<string, { readonly replacement: string; readonly why: string }>> = {
  container: {
    replacement: 'scope',
    why: 'pass a store scope instead: createFoldRuntime({ sessionId, scope: await createStoreScope({ store }) }); the ports a runtime uses are on ComposedRuntime.ports',
  },
};

/**
 * Refuse keys that are not options of `who`: a removed option with its replacement
 * (`SETTINGS.DELETED_OPTION`), anything else suggesting the option a typo was probably meant as.
 */
export function assertKnownOptions(options: object, known: readonly string[], who: string): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const removed = Object.hasOwn(REMOVED_RUNTIME_OPTIONS, key) ? REMOVED_RUNTIME_OPTIONS[key] : undefined;
    if (removed !== undefined)
      throw new FoldError('SETTINGS.DELETED_OPTION', `${who}: ${key} was removed: ${removed.why}`, {
        details: { option: key, replacement: removed.replacement },
      });
    const nearest = nearestName(key, known);
    throw new FoldError(
      'SETTINGS.UNKNOWN_OPTION',
      `${who}: ${key} is not an option${nearest === undefined ? '' : ` (did you mean ${nearest}?)`}; known: ${known.join(', ')}`,
      {
        details: { option: key, ...(nearest === undefined ? {} : { suggestion: nearest }) },
      },
    );
  }
}

/**
 * Make reading a removed member of a returned object a `SETTINGS.DELETED_OPTION` naming its
 * replacement, for hosts written in JavaScript (TypeScript already refuses the name). Not
 * enumerable, so spreading or logging the object never trips it.
 */
export function refuseRemovedMember(target: object, member: string, name: string, replacement: string): void {
  Object.defineProperty(target, member, {
    enumerable: false,
    get() {
      throw new FoldError('SETTINGS.DELETED_OPTION', `${name} was removed: ${replacement}`, {
        details: { option: name, replacement },
      });
    },
  });
}

/** A session id is how a later process finds this conversation's folds again, so it cannot be made up silently. */
export function assertSessionIdOption(value: unknown, who: string): asserts value is string {
  if (value === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `${who}: sessionId is required: it names this conversation in the store, so a later call or process given the same id resumes its folds (use a stable id, such as your chat or thread id)`,
      {
        details: { option: 'sessionId' },
      },
    );
  }
  assertSafeId(value, 'session id', who);
}

/**
 * `storeRoot` and `sqlitePath` must belong to the store that uses them and point at the right
 * kind of thing; a store that would silently ignore them, or fail later with a bare system
 * error, is refused here instead.
 */
export function assertStoreLocation(options: StoreSelectionOptions, who: string): void {
  const kind = typeof options.store === 'string' ? options.store : options.store === undefined ? 'fs' : 'instance';
  if (options.storeRoot !== undefined && kind !== 'fs' && kind !== 'sqlite') {
    throw invalidLocation(
      `${who}: storeRoot is only used by the 'fs' and 'sqlite' stores, but store is ${kind === 'instance' ? 'a store instance' : `'${kind}'`}; drop storeRoot or choose store: 'fs'`,
      'storeRoot',
    );
  }
  if (options.sqlitePath !== undefined && kind !== 'sqlite') {
    throw invalidLocation(
      `${who}: sqlitePath is only used by store: 'sqlite', but store is ${kind === 'instance' ? 'a store instance' : `'${kind}'`}`,
      'sqlitePath',
    );
  }
  if (options.storeRoot !== undefined) {
    if (typeof options.storeRoot !== 'string' || options.storeRoot.length === 0)
      throw invalidLocation(
        `${who}: storeRoot must be a directory path, got ${describeValue(options.storeRoot)}`,
        'storeRoot',
      );
    const found = kindOfPath(options.storeRoot);
    if (found.kind === 'file')
      throw invalidLocation(
        `${who}: storeRoot ${options.storeRoot} is not a directory (it is a file); give a directory for the store`,
        'storeRoot',
      );
    if (found.kind === 'unusable')
      throw invalidLocation(
        `${who}: storeRoot ${options.storeRoot} cannot be used as a directory (${found.code}${found.code === 'ENOTDIR' ? ': a part of the path is a file' : ''})`,
        'storeRoot',
      );
  }
  if (options.sqlitePath !== undefined) {
    if (typeof options.sqlitePath !== 'string' || options.sqlitePath.length === 0)
      throw invalidLocation(
        `${who}: sqlitePath must be a database file path, got ${describeValue(options.sqlitePath)}`,
        'sqlitePath',
      );
    if (kindOfPath(options.sqlitePath).kind === 'directory')
      throw invalidLocation(
        `${who}: sqlitePath ${options.sqlitePath} is a directory; give the path of a database file (it is created if absent)`,
        'sqlitePath',
      );
  }
}

/**
 * An on/off option is absent, true or false: anything else (a string "false", a 0) is refused by
 * name, not read as on.
 */
export function assertOnOffOption(value: unknown, option: string, who: string): void {
  if (value !== undefined && typeof value !== 'boolean') {
    throw new FoldError('SETTINGS.INVALID', `${who}: ${option} must be true or false, got ${describeValue(value)}`, {
      details: { option },
    });
  }
}

/** A value as an error message should show it: a string quoted, so "60000" is not mistaken for 60000. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string')
    return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return `${typeof value} ${String(value)}`;
}

function kindOfPath(path: string): {
  readonly kind: 'absent' | 'directory' | 'file' | 'unusable';
  readonly code?: string;
} {
  try {
    return { kind: statSync(path).isDirectory() ? 'directory' : 'file' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    // Absent is fine (the store creates it); a file where a parent should be, or no access, is not.
    return code === 'ENOENT' ? { kind: 'absent' } : { kind: 'unusable', code };
  }
}

function invalidLocation(message: string, option: string): FoldError {
  return new FoldError('SETTINGS.INVALID', message, { details: { option } });
}

/**
 * The known name within two edits of `name`, if exactly one is nearest. Shared with the CLI,
 * which suggests option and command names the same way.
 */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
