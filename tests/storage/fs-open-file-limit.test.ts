import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import type { ShortageReport } from './support/descriptor-shortage-child.ts';
import type { LongSessionReport } from './support/long-fs-session-child.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * A long session on the fs store, the store a Pi user gets by default, under a small limit on
 * open files (256, a default macOS shell). Every fan-out of store I/O is bounded to a fixed
 * number of descriptors whatever the session's size, so thousands of entries, their blobs
 * and records all fit; before, a commit's barrier opened every new blob at once, the limit
 * was reached a few hundred entries in, and the session was refused from then on, in this
 * process and the next.
 */
const CHILD = fileURLToPath(new URL('./support/long-fs-session-child.ts', import.meta.url));
const SHORTAGE_CHILD = fileURLToPath(new URL('./support/descriptor-shortage-child.ts', import.meta.url));
const OPEN_FILES_LIMIT = 256;
const ENTRIES = 3_000;
/** Rounds of user turn, tool call and result per request: two keep the entry count with half the requests. */
const TURNS_PER_REQUEST = 2;
const RESULT_CHARS = 300;
const BUDGET_TOKENS = 12_000;

const scratch = await scratchDirectory('fs-open-file-limit');
afterAll(() => removeScratch(scratch), 60_000);

/** Run the long session's child under `ulimit -n`, from `start` entries (a reopened session) to `entries`. */
function runLimited(root: string, start: number, entries: number): Promise<LongSessionReport> {
  const numbers = [start, entries, TURNS_PER_REQUEST, RESULT_CHARS, BUDGET_TOKENS].map(String);
  return runChild(OPEN_FILES_LIMIT, [CHILD, root, 'long-session', ...numbers]);
}

/** Run a child script under `ulimit -n <limit>` and parse the JSON line it prints last. */
function runChild<Report>(limit: number, script: readonly string[]): Promise<Report> {
  const argv = [process.execPath, '--import', 'tsx', ...script];
  const quoted = argv.map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(' ');
  const child = spawn('bash', ['-c', `ulimit -n ${limit} && exec ${quoted}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`child exited ${code}: ${stderr.slice(-2_000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as Report);
    });
  });
}

function expectWholeSession(report: LongSessionReport, entries: number): void {
  expect(report.openFilesLimit, 'the limit the child ran under').toBe(OPEN_FILES_LIMIT);
  expect(report.refusals, 'refused requests and peeks').toEqual([]);
  expect(report.served, 'requests served').toBe(report.requests);
  expect(report.entries).toBe(entries);
  expect(
    report.warnings.filter((code) => code.startsWith('STORE.')),
    'store warnings',
  ).toEqual([]);
  // Under a 12,000-token budget nearly all of a long session lives in folds.
  expect(report.foldedEntries, 'entries inside folds').toBeGreaterThan(entries * 0.8);
  expect(report.mismatches, 'folded entries whose peeked bytes differ').toEqual([]);
  expect(report.peekedEntries, 'folded entries peeked byte for byte').toBe(report.foldedEntries);
  expect(report.disposed, 'dispose()').toBe('ok');
  // A sampled peak: it can only miss descriptors, so a bound far below the limit is safe to ask.
  expect(report.peakOpenFiles, 'open descriptors seen at once').toBeLessThan(OPEN_FILES_LIMIT / 2);
}

describe.skipIf(process.platform !== 'linux')('fs store under a limit of 256 open files', () => {
  test(`a ${ENTRIES}-entry session is served whole, and a new process goes on with it`, {
    timeout: 240_000,
  }, async () => {
    const root = `${scratch}/store`;
    const first = await runLimited(root, 0, ENTRIES);
    expectWholeSession(first, ENTRIES);
    expect(first.requests).toBe(ENTRIES / (3 * TURNS_PER_REQUEST));
    // A new process, same limit: it reopens every fold and keeps folding as the session grows.
    const second = await runLimited(root, ENTRIES, ENTRIES + 300);
    expectWholeSession(second, ENTRIES + 300);
    expect(second.folds, 'folds after the reopened run').toBeGreaterThanOrEqual(first.folds);
  });

  test('a process out of open files waits a brief shortage out, names a lasting one, and goes on once it ends', {
    timeout: 120_000,
  }, async () => {
    const report = await runChild<ShortageReport>(128, [SHORTAGE_CHILD, `${scratch}/shortage`]);
    expect(report.heldDescriptors, 'descriptors held to make the shortage').toBeGreaterThan(50);
    expect(report.briefShortage, 'a blob put and read back across a 150 ms shortage').toBe('ok');
    // The refusal says what is wrong and what lifts it, not that the store is down.
    expect(report.refusal?.code).toBe('BUDGET.EXCEEDED');
    expect(report.refusal?.remedy).toMatch(/limit on open files/);
    expect(report.refusal?.remedy).toMatch(/ulimit -n/);
    expect(report.refusal?.remedy).not.toMatch(/accepts writes/);
    const skipped = report.warnings.filter((warning) => warning.code === 'STORE.COMMIT_SKIPPED');
    expect(skipped, 'one warning for the skipped commit').toHaveLength(1);
    expect(skipped[0]?.message).toMatch(/too many open files \(EMFILE\)/);
    expect(skipped[0]?.message).not.toMatch(/resumes once the store accepts writes/);
    // Not locked out: every request after the shortage is served, and folding goes on.
    expect(report.servedAfter, 'requests served after the shortage').toBe(report.requestsAfter);
    expect(report.foldsAfter).toBeGreaterThan(report.foldsBefore);
    expect(report.peekMismatches, 'folded entries whose peeked bytes differ').toBe(0);
    expect(report.peekedEntries).toBeGreaterThan(0);
    expect(report.disposed, 'dispose()').toBe('ok');
  });
});
