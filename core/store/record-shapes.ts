/**
 * Shape checks for what a store hands back. An envelope's SHA-256 proves a record is the
 * one written, not that the one written was well formed: a body re-hashed around the wrong
 * shape would otherwise reach the engine and fail there as a `TypeError`. Each check returns
 * what is wrong, in words, or `undefined` when the value has the shape the engine reads.
 */

const FOLD_KINDS = new Set(['tool', 'chapter', 'consolidation']);
const ORIGINS = new Set(['runtime', 'agent', 'user']);
const PROVENANCES = new Set(['deterministic', 'supplied']);
const SHA256 = /^[0-9a-f]{64}$/;

type Shape = Record<string, unknown>;

const isObject = (value: unknown): value is Shape =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
const isText = (value: unknown): boolean => typeof value === 'string';
const isNumber = (value: unknown): boolean => typeof value === 'number' && Number.isFinite(value);

/** What is wrong with a fold record's body, or `undefined` when it can be read. */
export function foldRecordProblem(value: unknown): string | undefined {
  if (!isObject(value)) return 'the record is not an object';
  const textFields = ['id', 'firstEntryId', 'lastEntryId', 'brief'] as const;
  for (const field of textFields) if (!isText(value[field])) return `${field} must be a string`;
  if (!FOLD_KINDS.has(value.kind as string)) return 'kind must be tool, chapter or consolidation';
  if (!ORIGINS.has(value.origin as string)) return 'origin must be runtime, agent or user';
  if (!PROVENANCES.has(value.provenance as string)) return 'provenance must be deterministic or supplied';
  if (typeof value.sourceSha256 !== 'string' || !SHA256.test(value.sourceSha256))
    return 'sourceSha256 must be a SHA-256';
  for (const field of ['sourceChars', 'entryCount', 'epoch'] as const)
    if (!isCount(value[field])) return `${field} must be a whole number`;
  if (!Array.isArray(value.parts)) return 'parts must be an array';
  for (const [position, part] of value.parts.entries()) {
    const problem = partProblem(part);
    if (problem !== undefined) return `parts[${position}] ${problem}`;
  }
  if (value.toolCalls !== undefined) {
    if (!Array.isArray(value.toolCalls)) return 'toolCalls must be an array';
    for (const call of value.toolCalls)
      if (!isObject(call) || !isText(call.toolCallId) || !isText(call.toolName))
        return 'toolCalls must name each toolCallId and toolName';
  }
  return undefined;
}

function partProblem(part: unknown): string | undefined {
  if (!isObject(part)) return 'is not an object';
  if (part.kind === 'fold') return isText(part.foldId) ? undefined : 'names no foldId';
  if (part.kind !== 'entry') return 'must be an entry or a fold';
  if (!isText(part.entryId)) return 'names no entryId';
  if (typeof part.sha256 !== 'string' || !SHA256.test(part.sha256)) return 'has no SHA-256';
  return isCount(part.chars) ? undefined : 'has no chars count';
}

const COUNTERS = [
  'requests',
  'pureAppends',
  'rewrites',
  'unattributedRewrites',
  'providerCacheMisses',
  'commits',
  'foldsLanded',
] as const;

/**
 * What is wrong with the members of an engine state whose top-level fields are already
 * known to be arrays and numbers, or `undefined` when every element has its shape.
 */
export function engineStateElementProblem(state: Shape): string | undefined {
  const lists: readonly [string, (item: unknown) => boolean][] = [
    ['foldIds', isText],
    ['expanded', isText],
    ['pins', isText],
    ['marks', isMark],
    ['holds', (item) => isObject(item) && isText(item.firstEntryId) && isText(item.lastEntryId)],
    ['inserts', isInsert],
    ['ephemeralPeeks', (item) => isObject(item) && isText(item.toolCallId) && isText(item.foldId)],
    ['calibration', (item) => isObject(item) && isNumber(item.chars) && isNumber(item.tokens)],
    ['lostFolds', (item) => isObject(item) && isText(item.foldId) && isText(item.reason)],
    ['cacheReports', (item) => isObject(item) && isNumber(item.gapMs) && typeof item.lost === 'boolean'],
  ];
  const optional = new Set(['lostFolds', 'cacheReports']);
  for (const [field, valid] of lists) {
    const list = state[field];
    if (list === undefined && optional.has(field)) continue;
    if (!Array.isArray(list)) return `${field} must be an array`;
    const at = list.findIndex((item) => !valid(item));
    if (at >= 0) return `${field}[${at}] is not well formed`;
  }
  const inflow = state.inflow;
  if (
    inflow !== undefined &&
    !(
      isObject(inflow) &&
      Array.isArray(inflow.samples) &&
      inflow.samples.every(isNumber) &&
      (inflow.lastSentTokens === undefined || isNumber(inflow.lastSentTokens))
    )
  )
    return 'inflow must hold numeric samples and an optional numeric lastSentTokens';
  const counters = state.counters as Shape;
  // A counter an older state lacks starts again from nothing; one of another type cannot be counted on.
  for (const counter of COUNTERS)
    if (counters[counter] !== undefined && !isNumber(counters[counter])) return `counters.${counter} must be a number`;
  if (!isNumber(state.revision) || !isNumber(state.epoch)) return 'revision and epoch must be numbers';
  return undefined;
}

function isMark(item: unknown): boolean {
  return (
    isObject(item) &&
    isText(item.id) &&
    FOLD_KINDS.has(item.kind as string) &&
    ORIGINS.has(item.origin as string) &&
    isText(item.firstEntryId) &&
    isText(item.lastEntryId) &&
    (item.brief === undefined || isText(item.brief)) &&
    isNumber(item.cutAtRequest)
  );
}

function isInsert(item: unknown): boolean {
  return (
    isObject(item) &&
    (item.kind === 'notice' || item.kind === 'receipt') &&
    isText(item.afterEntryId) &&
    isNumber(item.sequence) &&
    isText(item.text)
  );
}
