import fc from 'fast-check';
import { ACTION_NAMES } from '../../../core/actions/action-arguments.ts';
import { FOLD_ERROR_CODES } from '../../../core/fold-error.ts';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';
import { stableStringify } from '../../../core/util/hashing.ts';
import { serialize } from '../../../testing/window-checks.ts';

/** Where a live id is drawn from when the call is made (the session changes as calls land). */
export type IdPool = 'fold' | 'mark' | 'entry' | 'foreign';

/** An id argument: a live id of some pool, or a raw hostile value. */
export type IdValue = { readonly live: IdPool; readonly index: number } | { readonly raw: unknown };

/** One generated call, before live ids are resolved. */
export interface HostileCall {
  readonly action: unknown;
  readonly fields: Readonly<Record<string, unknown>>;
  readonly extra: Readonly<Record<string, unknown>>;
}

const VALID_ACTIONS: readonly string[] = ACTION_NAMES;

const controlAndUnicode = fc.constantFrom(
  '\u0000',
  '\u0007',
  '\r\n',
  '\u202e',
  '\u200b',
  '\ud83d\ude00',
  '\ud800',
  'é',
  '\\',
  '"',
  '`$(rm -rf /)`',
  '%00',
  '\u001b[31m',
);
/** Strings a model should never get anything from: paths, huge, control chars, lone surrogates. */
const hostileString = fc.oneof(
  fc.constantFrom(
    '../../etc/passwd',
    '/etc/passwd',
    '..',
    '.',
    '',
    ' ',
    'C:\\Windows\\system32',
    'file:///etc/passwd',
    '~/.ssh/id_rsa',
    'sessions/../../x',
    '__proto__',
    'constructor',
    'prototype',
    `fold_${'0'.repeat(24)}`,
    'fold_../../x',
    'a'.repeat(257),
    'NaN',
    'null',
    '*',
    '%2e%2e%2f',
  ),
  fc.string({ maxLength: 40 }),
  fc.array(controlAndUnicode, { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
  fc.integer({ min: 2_001, max: 120_000 }).map((length) => 'x'.repeat(length)),
);
/** Values of the wrong type for any field. */
const wrongType = fc.constantFrom<unknown>(
  null,
  0,
  -1,
  1.5,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  [],
  {},
  { id: 'x' },
  [1, 2],
  () => 'call me',
);

const idValue: fc.Arbitrary<IdValue> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      live: fc.constantFrom<IdPool>('fold', 'fold', 'mark', 'mark', 'entry', 'foreign'),
      index: fc.nat(1_000),
    }),
  },
  { weight: 3, arbitrary: hostileString.map((raw) => ({ raw })) },
  { weight: 1, arbitrary: wrongType.map((raw) => ({ raw })) },
);
const numberField = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 60_000 }) },
  { weight: 1, arbitrary: fc.integer({ min: -5, max: 300_000 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(-1, Number.NaN, Number.POSITIVE_INFINITY, -0, 2 ** 53, 1e300, 0.5, '100', null),
  },
);
const textField = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 200 }) },
  { weight: 2, arbitrary: hostileString },
  { weight: 1, arbitrary: wrongType },
);

const ALLOWED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  status: ['detail'],
  peek: ['id', 'offset', 'bytes', 'ephemeral'],
  brief: ['id', 'text'],
  expand: ['id'],
  refold: ['id'],
  pin: ['ids'],
  unpin: ['ids'],
  reboundary: ['ids', 'brief'],
  unmark: ['id'],
};

const anyFields = fc.record(
  {
    id: idValue,
    ids: fc.oneof(
      { weight: 4, arbitrary: fc.array(idValue, { minLength: 1, maxLength: 4 }) },
      {
        weight: 1,
        arbitrary: fc.constantFrom<unknown>(
          [],
          Array.from({ length: 65 }, (_, n) => `e${n}`),
          'e1',
          null,
        ),
      },
    ),
    text: textField,
    brief: textField,
    detail: fc.constantFrom<unknown>('summary', 'tree', 'TREE', 1, null),
    offset: numberField,
    bytes: numberField,
    ephemeral: fc.constantFrom<unknown>(true, false, 'yes', 0, null),
  },
  { requiredKeys: [] },
);

/**
 * A random call: mostly a known action with the fields it takes (values live, hostile or
 * mistyped), sometimes a stray field of another action, an unknown action, or extra keys.
 */
export const hostileCall: fc.Arbitrary<HostileCall> = fc
  .record({
    action: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...VALID_ACTIONS) },
      {
        weight: 1,
        arbitrary: fc.oneof(hostileString, wrongType, fc.constantFrom('STATUS', 'commit', 'fold', 'delete')),
      },
    ),
    fields: anyFields,
    keepStrayFields: fc.integer({ min: 0, max: 9 }).map((roll) => roll === 0),
    extra: fc.oneof(
      { weight: 12, arbitrary: fc.constant({}) },
      {
        weight: 1,
        arbitrary: fc.dictionary(
          fc.constantFrom('path', 'root', 'sessionId', 'constructor', 'prototype', 'commit', 'x'.repeat(60)),
          fc.oneof(hostileString, wrongType),
          { maxKeys: 2 },
        ),
      },
    ),
  })
  .map(({ action, fields, keepStrayFields, extra }) => {
    const allowed =
      typeof action === 'string' && Object.hasOwn(ALLOWED_FIELDS, action) ? ALLOWED_FIELDS[action] : undefined;
    const kept =
      keepStrayFields || allowed === undefined
        ? fields
        : Object.fromEntries(Object.entries(fields).filter(([key]) => allowed.includes(key)));
    return { action, fields: kept, extra };
  });

/** Ids the session knows right now, by pool (the foreign pool is another session's folds). */
export function livePools(runtime: FoldRuntime, foreign: readonly string[]): Record<IdPool, readonly string[]> {
  return {
    fold: [...runtime.view.lattice.allRecords()].map((record) => record.id),
    mark: runtime.view.memory.marks.map((mark) => mark.id),
    entry: runtime.view.index.entries.map((entry) => entry.id),
    foreign,
  };
}

function resolveId(value: IdValue, pools: Record<IdPool, readonly string[]>): unknown {
  if ('raw' in value) return value.raw;
  const pool = pools[value.live];
  return pool.length === 0 ? `missing-${value.live}` : pool[value.index % pool.length];
}

/** The arguments object a model would send, with live ids filled in. */
export function resolveCall(call: HostileCall, pools: Record<IdPool, readonly string[]>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  // Defined one by one so a "__proto__" key becomes an own property, as JSON.parse makes it.
  for (const [key, value] of Object.entries(call.extra))
    Object.defineProperty(args, key, { value, enumerable: true, configurable: true, writable: true });
  args.action = call.action;
  for (const [key, value] of Object.entries(call.fields)) {
    if (key === 'id') args.id = resolveId(value as IdValue, pools);
    else if (key === 'ids')
      args.ids = Array.isArray(value)
        ? value.map((item) =>
            typeof item === 'object' && item !== null && ('live' in item || 'raw' in item)
              ? resolveId(item as IdValue, pools)
              : item,
          )
        : value;
    else args[key] = value;
  }
  return args;
}

/** Everything a refusal must leave exactly as it was: memory, expansions, queued rewrites, the rendered window. */
export function runtimeFingerprint(runtime: FoldRuntime): string {
  const memory = stableStringify(
    runtime.view.memory.snapshot(runtime.view.lattice.expanded, runtime.view.estimator.calibration()),
  );
  const { messages } = { messages: runtime.view.pendingWindow() };
  return `${memory}\n${[...runtime.view.pendingCauses].sort().join(',')}\n${runtime.view.forcedCommit === undefined ? '' : 'forced'}\n${serialize(messages)}`;
}

/**
 * Whether a refusal names its reason: a FoldError code from the closed list, and a message
 * that names the action or one of the fields the call carried.
 */
export function refusalProblems(error: unknown, args: Record<string, unknown>): string[] {
  const record = error as { code?: unknown; message?: unknown };
  const problems: string[] = [];
  if (typeof record?.code !== 'string' || !(FOLD_ERROR_CODES as readonly string[]).includes(record.code))
    problems.push(`refusal without a FoldError code: ${String(error).slice(0, 200)}`);
  const message = typeof record?.message === 'string' ? record.message : '';
  // An unknown action is blamed on "action"; otherwise the message must name the verb or a field it was given.
  const knownAction = typeof args.action === 'string' && VALID_ACTIONS.includes(args.action);
  const names = knownAction
    ? [
        args.action as string,
        ...Object.keys(args)
          .filter((key) => key !== 'action')
          .map((key) => key.slice(0, 40)),
      ]
    : ['action'];
  if (!names.some((name) => message.includes(name)))
    problems.push(`refusal "${message.slice(0, 160)}" names none of ${names.join(', ')}`);
  return problems;
}
