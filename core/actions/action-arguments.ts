import { FoldError } from '../fold-error.ts';
import { BRIEF_MAX_CHARS } from '../folds/briefs.ts';

/**
 * The actions of the agent's tool: the nine of docs/behaviour.md B4 and `search` (exact recall over every
 * fold's verified source). There is deliberately no commit verb (docs/behaviour.md B3.4).
 */
export const ACTION_NAMES = [
  'status',
  'peek',
  'search',
  'brief',
  'expand',
  'refold',
  'pin',
  'unpin',
  'reboundary',
  'unmark',
] as const;
export type ActionName = (typeof ACTION_NAMES)[number];

export const PEEK_DEFAULT_BYTES = 16_000;
export const PEEK_MIN_BYTES = 1_024;
export const PEEK_MAX_BYTES = 200_000;
export const MAX_IDS_PER_CALL = 64;
export const SEARCH_DEFAULT_LIMIT = 10;
export const SEARCH_MAX_LIMIT = 50;
export const SEARCH_MAX_PAGE = 10_000;
export const SEARCH_PATTERN_MAX_CHARS = 512;
const MAX_ID_CHARS = 256;

export type FoldAction =
  | { readonly action: 'status'; readonly detail: 'summary' | 'tree' }
  | {
      readonly action: 'peek';
      readonly id: string;
      readonly offset?: number;
      readonly bytes?: number;
      readonly ephemeral: boolean;
    }
  | {
      readonly action: 'search';
      readonly pattern: string;
      readonly regex: boolean;
      readonly ignoreCase: boolean;
      readonly within?: string;
      readonly page: number;
      readonly limit: number;
    }
  | { readonly action: 'brief'; readonly id: string; readonly text: string }
  | { readonly action: 'expand'; readonly id: string }
  | { readonly action: 'refold'; readonly id: string }
  | { readonly action: 'pin'; readonly ids: readonly string[] }
  | { readonly action: 'unpin'; readonly ids: readonly string[] }
  | { readonly action: 'reboundary'; readonly ids: readonly string[]; readonly brief?: string }
  | { readonly action: 'unmark'; readonly id: string };

const ALLOWED_KEYS: Readonly<Record<ActionName, readonly string[]>> = {
  status: ['detail'],
  peek: ['id', 'offset', 'bytes', 'ephemeral'],
  search: ['pattern', 'regex', 'ignoreCase', 'within', 'page', 'limit'],
  brief: ['id', 'text'],
  expand: ['id'],
  refold: ['id'],
  pin: ['ids'],
  unpin: ['ids'],
  reboundary: ['ids', 'brief'],
  unmark: ['id'],
};

/** Turn whatever the model sent into a typed action, or refuse it naming the problem. */
export function parseAction(input: unknown): FoldAction {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw bad('the arguments must be an object like {"action":"status"}');
  }
  const record = input as Record<string, unknown>;
  const action = record.action;
  if (typeof action !== 'string' || !(ACTION_NAMES as readonly string[]).includes(action)) {
    throw new FoldError('ACTION.UNKNOWN', `action must be one of ${ACTION_NAMES.join(', ')}; got ${preview(action)}`, {
      details: { action: preview(action) },
    });
  }
  const name = action as ActionName;
  const extra = Object.keys(record).filter(
    (key) => key !== 'action' && !ALLOWED_KEYS[name].includes(key) && record[key] !== undefined,
  );
  if (extra.length > 0) {
    throw bad(
      `${name} does not take ${extra.map((key) => `"${key.slice(0, 40)}"`).join(', ')} (it takes ${ALLOWED_KEYS[name].join(', ') || 'nothing else'})`,
    );
  }
  switch (name) {
    case 'status': {
      const detail = record.detail ?? 'summary';
      if (detail !== 'summary' && detail !== 'tree')
        throw bad(`status.detail must be "summary" or "tree", got ${preview(detail)}`);
      return { action: name, detail };
    }
    case 'peek': {
      const offset = optionalInteger(record.offset, 'peek.offset', 0, Number.MAX_SAFE_INTEGER);
      const bytes = optionalInteger(record.bytes, 'peek.bytes', PEEK_MIN_BYTES, PEEK_MAX_BYTES);
      const ephemeral = record.ephemeral ?? true;
      if (typeof ephemeral !== 'boolean') throw bad(`peek.ephemeral must be true or false, got ${preview(ephemeral)}`);
      return {
        action: name,
        id: requireId(record.id, 'peek.id'),
        ephemeral,
        ...(offset === undefined ? {} : { offset }),
        ...(bytes === undefined ? {} : { bytes }),
      };
    }
    case 'search': {
      const pattern = record.pattern;
      if (typeof pattern !== 'string' || pattern.length === 0)
        throw bad(`search.pattern must be non-empty text, got ${preview(pattern)}`);
      if (pattern.length > SEARCH_PATTERN_MAX_CHARS)
        throw bad(`search.pattern is ${pattern.length} chars; a pattern is at most ${SEARCH_PATTERN_MAX_CHARS}`);
      const within = record.within === undefined ? undefined : requireId(record.within, 'search.within');
      return {
        action: name,
        pattern,
        regex: optionalBoolean(record.regex, 'search.regex', false),
        ignoreCase: optionalBoolean(record.ignoreCase, 'search.ignoreCase', false),
        page: optionalInteger(record.page, 'search.page', 1, SEARCH_MAX_PAGE) ?? 1,
        limit: optionalInteger(record.limit, 'search.limit', 1, SEARCH_MAX_LIMIT) ?? SEARCH_DEFAULT_LIMIT,
        ...(within === undefined ? {} : { within }),
      };
    }
    case 'brief':
      return { action: name, id: requireId(record.id, 'brief.id'), text: requireBrief(record.text, 'brief.text') };
    case 'expand':
    case 'refold':
    case 'unmark':
      return { action: name, id: requireId(record.id, `${name}.id`) };
    case 'pin':
    case 'unpin':
      return { action: name, ids: requireIds(record.ids, `${name}.ids`) };
    case 'reboundary': {
      const ids = requireIds(record.ids, 'reboundary.ids');
      return record.brief === undefined
        ? { action: name, ids }
        : { action: name, ids, brief: requireBrief(record.brief, 'reboundary.brief') };
    }
  }
}

function requireId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0)
    throw bad(`${field} must be a non-empty string id, got ${preview(value)}`);
  if (value.length > MAX_ID_CHARS) throw bad(`${field} is ${value.length} chars long; ids are at most ${MAX_ID_CHARS}`);
  return value;
}

function requireIds(value: unknown, field: string): string[] {
  if (!Array.isArray(value)) throw bad(`${field} must be an array of ids, got ${preview(value)}`);
  if (value.length === 0 || value.length > MAX_IDS_PER_CALL)
    throw bad(`${field} must hold 1 to ${MAX_IDS_PER_CALL} ids, got ${value.length}`);
  const ids = value.map((item, position) => requireId(item, `${field}[${position}]`));
  if (new Set(ids).size !== ids.length) throw bad(`${field} names the same id twice`);
  return ids;
}

function requireBrief(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim().length === 0)
    throw bad(`${field} must be non-empty text, got ${preview(value)}`);
  if (value.length > BRIEF_MAX_CHARS)
    throw bad(`${field} is ${value.length} chars; a brief is at most ${BRIEF_MAX_CHARS}`);
  return value;
}

function optionalBoolean(value: unknown, field: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw bad(`${field} must be true or false, got ${preview(value)}`);
  return value;
}

function optionalInteger(value: unknown, field: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw bad(`${field} must be an integer from ${min} to ${max}, got ${preview(value)}`);
  }
  return value;
}

function bad(message: string): FoldError {
  return new FoldError('ACTION.INVALID_ARGUMENT', message);
}

/** A short, safe rendering of a bad value for an error message. */
export function preview(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}
