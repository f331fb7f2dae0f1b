import { FoldRuntime } from '../core/fold-runtime.ts';
import { createCharsCostModel } from '../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../core/settings/settings.ts';
import { describeEntryProblem } from '../core/transcript/entry-validation.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { BranchRead, KnownBranch, TranscriptEntry, TranscriptSource } from '../ports/transcript-source.port.ts';
import { type ConformanceHarness, check, checkEqual } from './conformance-support.ts';

/** A source under test, and the host moves the suite asks for. */
export interface TranscriptSourceSubject {
  readonly source: TranscriptSource;
  /** The host adds at least one entry at the end of its branch (a turn, a tool batch). */
  advance(): Promise<void> | void;
  /** The host changes its history before the end (a branch switch, an edit). Omit when it cannot. */
  rewrite?(): Promise<void> | void;
  dispose?(): Promise<void> | void;
}

export interface TranscriptSourceConformanceOptions {
  /** A fresh, empty FoldStore for the engine the suite drives (any backend). */
  readonly createFoldStore: () => FoldStore | Promise<FoldStore>;
  /** Prefix of every test name. @default 'TranscriptSource conformance' */
  readonly label?: string;
}

const NOTHING_KNOWN: KnownBranch = { lastEntryId: undefined, length: 0 };

/** The branch a read leaves the engine with, given the branch it held before. */
function branchAfter(previous: readonly TranscriptEntry[], read: BranchRead): readonly TranscriptEntry[] {
  return read.kind === 'branch' ? read.entries : [...previous, ...read.entries];
}

function knownOf(branch: readonly TranscriptEntry[]): KnownBranch {
  return { lastEntryId: branch[branch.length - 1]?.id, length: branch.length };
}

/** The read's own promise: an `appended` read names exactly the entry the engine holds last. */
function checkRead(read: BranchRead, known: KnownBranch, what: string): void {
  check(
    read.kind === 'branch' || read.kind === 'appended',
    `${what}: kind must be branch or appended, got ${String((read as { kind?: unknown }).kind)}`,
  );
  check(Array.isArray(read.entries), `${what}: entries must be an array`);
  if (read.kind === 'appended')
    checkEqual(read.afterEntryId, known.lastEntryId, `${what}: an appended read's afterEntryId`);
}

function checkEntries(branch: readonly TranscriptEntry[], what: string): void {
  const ids = new Set<string>();
  branch.forEach((entry, position) => {
    const problem = describeEntryProblem(entry);
    check(problem === undefined, `${what}: entry ${position} ${problem}`);
    check(!ids.has(entry.id), `${what}: id ${entry.id} appears twice`);
    ids.add(entry.id);
  });
}

/**
 * The behaviour every TranscriptSource must have, runner-agnostic: valid entries, stable
 * ids, appends that keep the branch before them, `appended` reads only against the branch
 * the engine holds, and an engine fed by it that sees appends as appends and changes as changes.
 */
export function transcriptSourceConformance(
  harness: ConformanceHarness,
  createSubject: () => TranscriptSourceSubject | Promise<TranscriptSourceSubject>,
  options: TranscriptSourceConformanceOptions,
): void {
  const label = options.label ?? 'TranscriptSource conformance';
  const define = (name: string, body: (subject: TranscriptSourceSubject) => Promise<void>) =>
    harness.test(`${label}: ${name}`, async () => {
      const subject = await createSubject();
      try {
        await body(subject);
      } finally {
        await subject.dispose?.();
      }
    });

  readCases(define);
  engineCases(define, options);
}

/** Registers one conformance case on a fresh subject. */
type DefineCase = (name: string, body: (subject: TranscriptSourceSubject) => Promise<void>) => void;

/** What the source hands over: valid entries, stable ids and bytes, appends that keep the branch before them, no blind append. */
function readCases(define: DefineCase): void {
  define('declares v1 and a session id; every entry is one the engine accepts', async ({ source, advance }) => {
    checkEqual(source.specificationVersion, 'v1', 'specificationVersion');
    check(typeof source.sessionId === 'string' && source.sessionId.length > 0, 'sessionId must be a non-empty string');
    await advance();
    const read = source.read(NOTHING_KNOWN);
    checkRead(read, NOTHING_KNOWN, 'first read');
    const branch = branchAfter([], read);
    check(branch.length > 0, 'after advance the branch has entries');
    checkEntries(branch, 'first read');
  });

  define('reading again with nothing new repeats the branch: same ids, same bytes', async ({ source, advance }) => {
    await advance();
    const first = branchAfter([], source.read(NOTHING_KNOWN));
    const read = source.read(knownOf(first));
    checkRead(read, knownOf(first), 'second read');
    const second = branchAfter(first, read);
    checkEqual(second.length, first.length, 'entries on an unchanged branch');
    second.forEach((entry, position) => {
      checkEqual(entry.id, first[position]!.id, `id at ${position}`);
      checkEqual(entry.bytes, first[position]!.bytes, `bytes at ${position}`);
    });
  });

  define('after the host appends, the branch it had is a prefix of the new one', async ({ source, advance }) => {
    await advance();
    const first = branchAfter([], source.read(NOTHING_KNOWN));
    await advance();
    const read = source.read(knownOf(first));
    checkRead(read, knownOf(first), 'read after an append');
    const second = branchAfter(first, read);
    check(second.length > first.length, `the branch grew (${first.length} → ${second.length})`);
    checkEntries(second, 'read after an append');
    first.forEach((entry, position) => {
      checkEqual(second[position]!.id, entry.id, `id at ${position} after an append`);
      checkEqual(second[position]!.bytes, entry.bytes, `bytes at ${position} after an append`);
    });
  });

  define(
    'an engine that holds something else is handed a branch it can check, never a blind append',
    async ({ source, advance }) => {
      await advance();
      const stranger: KnownBranch = { lastEntryId: 'conformance-entry-the-host-never-made', length: 1 };
      checkRead(source.read(stranger), stranger, 'read against a branch the host never handed');
    },
  );
}

/** An engine fed by the source: appends are pure appends, a rewrite of history is a recorded change. */
function engineCases(define: DefineCase, options: TranscriptSourceConformanceOptions): void {
  define('the engine reading through it sees an append as a pure append', async ({ source, advance }) => {
    const runtime = await openEngine(source, options);
    await advance();
    await runtime.project(source);
    await advance();
    const row = (await runtime.project(source)).ledger;
    checkEqual(row.causes.length, 0, 'causes of the request after an append');
    checkEqual(row.unattributed, false, 'unattributed');
    checkEqual(runtime.view.memory.counters.rewrites, 0, 'rewrites after appends only');
  });

  define(
    'a rewrite of history reaches the engine as a recorded change (when the host can rewrite)',
    async (subject) => {
      if (subject.rewrite === undefined) return;
      const runtime = await openEngine(subject.source, options);
      await subject.advance();
      await subject.advance();
      await runtime.project(subject.source);
      await subject.rewrite();
      const row = (await runtime.project(subject.source)).ledger;
      check(
        row.causes.includes('transcript-changed'),
        `a rewrite is recorded as transcript-changed, got [${row.causes.join(', ')}]`,
      );
      checkEqual(row.unattributed, false, 'unattributed');
    },
  );
}

async function openEngine(source: TranscriptSource, options: TranscriptSourceConformanceOptions): Promise<FoldRuntime> {
  return FoldRuntime.open({
    sessionId: source.sessionId,
    settings: resolveSettings({ providerInputBudget: 50_000_000 }),
    foldStore: await options.createFoldStore(),
    costModel: createCharsCostModel(),
  });
}
