import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { FoldError } from '../../../core/fold-error.ts';
import { DEFAULT_THRESHOLDS, resolveThresholds, type Thresholds } from '../../../core/settings/settings.ts';

/** Environment variable that moves the settings directory (tests, sandboxes). */
export const CONFIG_DIR_ENV = 'PI_FOLD_CONFIG_DIR';

/** Threshold names a file may carry from an older release; migration drops them, keeping every other value. */
const RETIRED_THRESHOLD_KEYS = ['freshTail'] as const;
const CURRENT_KEYS = Object.keys(DEFAULT_THRESHOLDS) as (keyof Thresholds)[];

/** What the settings file says, and whether it could be used. */
export interface LoadedSettingsFile {
  readonly path: string;
  readonly thresholds: Thresholds;
  /** `missing` and `ok` use the file's values (or defaults); `invalid` means defaults apply and `reason` says why. */
  readonly status: 'missing' | 'ok' | 'migrated' | 'invalid';
  readonly reason?: string;
}

/**
 * `~/.config/pi-fold/settings.json`, or under `$PI_FOLD_CONFIG_DIR`. An empty value counts
 * as unset: `PI_FOLD_CONFIG_DIR=` would otherwise name the current directory, and a file
 * there would quietly set the thresholds.
 */
export function settingsFilePath(environment: NodeJS.ProcessEnv = process.env): string {
  const configured = environment[CONFIG_DIR_ENV];
  const directory = configured === undefined || configured === '' ? join(homedir(), '.config', 'pi-fold') : configured;
  return join(directory, 'settings.json');
}

/**
 * Read the settings file (docs/behaviour.md B6.4). A file from an older release is migrated whole: every value
 * it carries is kept, a setting it predates gains its default, a retired one is dropped, and
 * the file is rewritten at once so a partial object is never read against later defaults.
 * An invalid file is left untouched and the defaults apply; the reason is returned.
 */
export async function loadSettingsFile(path: string = settingsFilePath()): Promise<LoadedSettingsFile> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { path, thresholds: DEFAULT_THRESHOLDS, status: 'missing' };
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: `cannot read it: ${(error as Error).message}`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: `it is not JSON: ${(error as Error).message}`,
    };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: 'it must hold an object like {"thresholds": {...}}',
    };
  }
  // JSON.parse keeps "__proto__" as an own key; copying it onto an object would swap that
  // object's prototype, so such a file is refused whole (and never migrated or rewritten).
  const unsafe = unsafeKeyPath(parsed);
  if (unsafe !== undefined) {
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: `it holds the key ${unsafe}, which is refused (prototype pollution); remove it`,
    };
  }
  const record = parsed as Record<string, unknown>;
  const extra = Object.keys(record).filter((key) => key !== 'thresholds');
  if (extra.length > 0) {
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: `its only key is "thresholds"; it also has ${extra.map((key) => JSON.stringify(key)).join(', ')}`,
    };
  }
  const stored = record.thresholds ?? {};
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    return { path, thresholds: DEFAULT_THRESHOLDS, status: 'invalid', reason: '"thresholds" must be an object' };
  }
  const storedRecord = stored as Record<string, unknown>;
  const retired = Object.keys(storedRecord).filter((key) =>
    (RETIRED_THRESHOLD_KEYS as readonly string[]).includes(key),
  );
  const missing = CURRENT_KEYS.filter((key) => storedRecord[key] === undefined);
  const candidate: Record<string, unknown> = { ...DEFAULT_THRESHOLDS };
  for (const [key, value] of Object.entries(storedRecord)) if (!retired.includes(key)) candidate[key] = value;
  let thresholds: Thresholds;
  try {
    thresholds = resolveThresholds(candidate);
  } catch (error) {
    return {
      path,
      thresholds: DEFAULT_THRESHOLDS,
      status: 'invalid',
      reason: FoldError.isInstance(error) ? error.message : String(error),
    };
  }
  if (retired.length === 0 && missing.length === 0) return { path, thresholds, status: 'ok' };
  await writeSettingsFile(path, thresholds);
  const changes = [
    ...(missing.length > 0 ? [`added ${missing.join(', ')} at defaults`] : []),
    ...(retired.length > 0 ? [`dropped retired ${retired.join(', ')}`] : []),
  ];
  return { path, thresholds, status: 'migrated', reason: changes.join('; ') };
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** The path of the first `__proto__`/`constructor`/`prototype` key at any depth, e.g. `"thresholds.__proto__"`. */
function unsafeKeyPath(value: unknown, prefix = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  for (const key of Object.keys(value)) {
    const path = prefix === '' ? key : `${prefix}.${key}`;
    if (UNSAFE_KEYS.has(key)) return JSON.stringify(path);
    const nested = unsafeKeyPath((value as Record<string, unknown>)[key], path);
    if (nested !== undefined) return nested;
  }
  return undefined;
}

/**
 * Apply changes to the current thresholds as one object and write the file only if the whole
 * result validates, so only a policy that would register is ever stored.
 * @throws FoldError `SETTINGS.*` naming the refused value; nothing is written then.
 */
export async function updateSettingsFile(
  path: string,
  current: Thresholds,
  changes: Readonly<Record<string, unknown>>,
): Promise<Thresholds> {
  const thresholds = resolveThresholds({ ...current, ...changes });
  await writeSettingsFile(path, thresholds);
  return thresholds;
}

async function writeSettingsFile(path: string, thresholds: Thresholds): Promise<void> {
  try {
    await mkdir(dirname(path), { recursive: true });
    const temporary = `${path}.${process.pid}.tmp`;
    await writeFile(temporary, `${JSON.stringify({ thresholds }, null, 2)}\n`, 'utf8');
    await rename(temporary, path);
  } catch (error) {
    throw new FoldError(
      'STORE.WRITE_FAILED',
      `pi: could not write the settings file ${path}: ${(error as Error).message}`,
      { cause: error, details: { path } },
    );
  }
}

/** Parse `/fold-settings maxTarget=0.7 minTarget=0.3` arguments into numbers. */
export function parseSettingsArguments(text: string): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  for (const token of text
    .trim()
    .split(/\s+/)
    .filter((part) => part.length > 0)) {
    const match = /^([A-Za-z]+)=(.+)$/.exec(token);
    if (match === null)
      throw new FoldError('SETTINGS.INVALID', `"${token.slice(0, 40)}" is not name=value (e.g. maxTarget=0.75)`);
    const value = Number(match[2]);
    changes[match[1]!] = Number.isFinite(value) ? value : match[2];
  }
  return changes;
}
