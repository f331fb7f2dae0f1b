/**
 * Whether JSON.stringify would write the same text for two values, without building either
 * string: the `context` event hands over a fresh copy of every message on every request, so
 * comparing the window by serialising it allocated its whole size twice per request. Keys are
 * compared in order, undefined and function values are skipped or written as null, and
 * `toJSON` is honoured, as JSON.stringify does.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  const left = asJsonValue(a);
  const right = asJsonValue(b);
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  if (Array.isArray(left) !== Array.isArray(right)) return false;
  if (Array.isArray(left)) return sameArray(left, right as unknown[]);
  return sameObject(left as Record<string, unknown>, right as Record<string, unknown>);
}

function sameArray(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let index = 0; index < a.length; index += 1)
    if (!sameJson(asArrayItem(a[index]), asArrayItem(b[index]))) return false;
  return true;
}

/** An array writes what an object leaves out as null. */
function asArrayItem(value: unknown): unknown {
  return asJsonValue(value) === undefined ? null : value;
}

function sameObject(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keysOfA = writtenKeys(a);
  const keysOfB = writtenKeys(b);
  if (keysOfA.length !== keysOfB.length) return false;
  for (let index = 0; index < keysOfA.length; index += 1) {
    const key = keysOfA[index]!;
    if (key !== keysOfB[index] || !sameJson(a[key], b[key])) return false;
  }
  return true;
}

/** The keys JSON writes for an object, in its order: undefined, function and symbol values are left out. */
function writtenKeys(value: Record<string, unknown>): string[] {
  return Object.keys(value).filter((key) => asJsonValue(value[key]) !== undefined);
}

/**
 * A value as JSON sees it before writing: `toJSON` applied, non-finite numbers as null, and
 * undefined for what it leaves out.
 */
function asJsonValue(value: unknown): unknown {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function')
    return asJsonValue((value as { toJSON: () => unknown }).toJSON());
  if (typeof value === 'number' && !Number.isFinite(value)) return null;
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (typeof value === 'bigint') throw new TypeError('sameJson: a BigInt cannot be written as JSON');
  return value;
}
