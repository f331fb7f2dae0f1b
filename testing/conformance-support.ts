import { randomBytes } from 'node:crypto';

/**
 * The tiny assertion kit of the conformance suites. They must run under any test runner
 * (vitest, node:test, mocha, a plain script), so they throw plain Errors and take the
 * runner's `test(name, fn)` instead of importing one.
 */

/** The part of a test runner the suites need: register a named async test. */
export interface ConformanceHarness {
  test(name: string, body: () => Promise<void>): void;
}

export class ConformanceFailure extends Error {
  override readonly name = 'ConformanceFailure';
}

export function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new ConformanceFailure(message);
}

export function checkEqual<T>(actual: T, expected: T, what: string): void {
  if (!Object.is(actual, expected))
    throw new ConformanceFailure(`${what}: expected ${show(expected)}, got ${show(actual)}`);
}

export function checkSameBytes(actual: Uint8Array, expected: Uint8Array, what: string): void {
  check(actual instanceof Uint8Array, `${what}: expected a Uint8Array, got ${show(actual)}`);
  checkEqual(actual.length, expected.length, `${what} length`);
  const first = actual.findIndex((byte, index) => byte !== expected[index]);
  check(first === -1, `${what}: bytes differ at offset ${first}`);
}

/** Await `action` and require it to fail with a FoldError carrying `code`; returns the error. */
export async function checkRejects(
  action: () => Promise<unknown>,
  code: string,
  what: string,
): Promise<Error & { code: string; details?: Record<string, unknown> }> {
  let outcome: unknown;
  try {
    outcome = await action();
  } catch (error) {
    const actual = (error as { code?: unknown })?.code;
    if (actual !== code)
      throw new ConformanceFailure(
        `${what}: expected a FoldError ${code}, got ${actual === undefined ? show(error) : String(actual)}: ${(error as Error)?.message}`,
      );
    return error as Error & { code: string };
  }
  throw new ConformanceFailure(`${what}: expected a FoldError ${code}, but it succeeded with ${show(outcome)}`);
}

/** A random id, so suites can share one backend (a Redis server) across tests and runs. */
export function randomId(prefix: string): string {
  return `${prefix}-${randomBytes(8).toString('hex')}`;
}

/** Ids and keys every store must refuse: traversal, absolute paths, separators, control chars. */
export const HOSTILE_IDS: readonly unknown[] = [
  '',
  '..',
  '../escape',
  'a/../../escape',
  '/etc/passwd',
  'a/b',
  'a\\b',
  'C:\\windows',
  'nul\u0000byte',
  'line\nbreak',
  ' leading-space',
  '.hidden',
  'x'.repeat(201),
  42,
  null,
  undefined,
];

export const HOSTILE_SHAS: readonly unknown[] = [
  '',
  `${'ABCDEF'.repeat(10)}abcd`,
  '0'.repeat(63),
  '0'.repeat(65),
  `../${'0'.repeat(61)}`,
  `${'0'.repeat(62)}/x`,
  7,
  null,
];

function show(value: unknown): string {
  if (value instanceof Uint8Array) return `Uint8Array(${value.length})`;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 120 ? `${text.slice(0, 120)}…` : text;
  } catch {
    return String(value);
  }
}
