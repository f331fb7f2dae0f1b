/**
 * A long session on the filesystem stores, as a Pi user gets them by default, run in its own
 * process so a parent can start it under a small open-file limit (`ulimit -n`). Each request
 * appends `turns` rounds of one user turn, one tool call and its result (`resultChars` chars of
 * text), projects under a small budget and reports a provider count, so the session folds
 * and consolidates all along. At the end every fold the session holds is peeked and each
 * entry it names is compared byte for byte with the entry handed in, and the runtime is
 * disposed. Prints one JSON line (`LongSessionReport`) on stdout.
 *
 *   node --import tsx long-fs-session-child.ts <root> <sessionId> <startEntries> <entries> <turns> <resultChars> <budget>
 *
 * Run again with the same root and session id and `startEntries` where the last run stopped,
 * it reopens the session (a new process), is handed the branch so far, and walks on.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { FsEvidenceStore } from '../../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { FoldError } from '../../../core/fold-error.ts';
import { FoldRuntime } from '../../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../../core/settings/settings.ts';
import { readRounds } from './read-rounds.ts';

export interface LongSessionReport {
  readonly requests: number;
  readonly served: number;
  readonly entries: number;
  /** The first refusals, `code: message`. */
  readonly refusals: readonly string[];
  /** Codes of every warning the session gave. */
  readonly warnings: readonly string[];
  readonly folds: number;
  readonly foldedEntries: number;
  readonly peekedEntries: number;
  /** Entries whose peeked bytes were not the bytes handed in. */
  readonly mismatches: readonly string[];
  /** The most descriptors this process held open, sampled while it ran. */
  readonly peakOpenFiles: number;
  /** This process's soft limit on open files, as the kernel reports it. */
  readonly openFilesLimit: number | undefined;
  readonly disposed: string;
}

const [root, sessionId, startText, entriesText, turnsText, resultCharsText, budgetText] = process.argv.slice(2);
if (root === undefined || sessionId === undefined || budgetText === undefined) {
  console.error(
    'usage: long-fs-session-child.ts <root> <sessionId> <startEntries> <entries> <turns> <resultChars> <budget>',
  );
  process.exit(2);
}
const targetEntries = Number(entriesText);
const turns = Number(turnsText);
const resultChars = Number(resultCharsText);

let peakOpenFiles = 0;
const sampleOpenFiles = () => {
  try {
    peakOpenFiles = Math.max(peakOpenFiles, readdirSync('/proc/self/fd').length);
  } catch {
    // At the limit the listing itself needs a descriptor: the session's own calls say what failed.
  }
};
// Descriptors a flush holds are held across its fsyncs, so a sampler on the event loop sees them.
const sampler = setInterval(sampleOpenFiles, 1);

function readOpenFilesLimit(): number | undefined {
  const line = readFileSync('/proc/self/limits', 'utf8')
    .split('\n')
    .find((row) => row.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft === undefined ? undefined : Number(soft);
}

// Read before the session runs: a session that reaches the limit could not open the file after.
const openFilesLimit = readOpenFilesLimit();
const branch = readRounds(targetEntries, resultChars);
const foldStore = new FsFoldStore({ root });
const warnings: string[] = [];
const refusals: string[] = [];
const runtime = await FoldRuntime.open({
  sessionId,
  settings: resolveSettings({ providerInputBudget: Number(budgetText) }),
  foldStore,
  evidenceStore: new FsEvidenceStore({ root }),
  costModel: createCharsCostModel(),
});
runtime.subscribe({ accept: () => undefined, acceptWarning: (warning) => void warnings.push(warning.code) });

let requests = 0;
let served = 0;
// A reopened session is handed its whole branch first, as a host hands it after a restart.
let length = Number(startText);
for (let first = length > 0; length < branch.length || first; first = false) {
  if (!first) length = Math.min(branch.length, length + 3 * turns);
  requests += 1;
  try {
    const result = await runtime.project(branch.slice(0, length));
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 10 });
    served += 1;
  } catch (error) {
    if (!FoldError.isInstance(error)) throw error;
    if (refusals.length < 5) refusals.push(`${error.code}: ${error.message}`);
  }
  sampleOpenFiles();
}

/** A fold's whole one-level document, read a page at a time as an agent would. */
async function peekWhole(foldId: string): Promise<string> {
  let text = '';
  for (let offset: number | undefined = 0; offset !== undefined; ) {
    const answer = await runtime.act({ action: 'peek', id: foldId, offset, bytes: 200_000 });
    text += answer.text;
    offset = answer.data.nextOffset as number | undefined;
  }
  return text;
}

const bytesById = new Map(branch.map((entry) => [entry.id, entry.bytes]));
const mismatches: string[] = [];
let foldedEntries = 0;
let peekedEntries = 0;
const records = [...runtime.view.lattice.allRecords()];
for (const record of records) {
  let document = '';
  try {
    document = await peekWhole(record.id);
  } catch (error) {
    if (!FoldError.isInstance(error)) throw error;
    if (refusals.length < 5) refusals.push(`peek ${record.id}: ${error.code}: ${error.message}`);
  }
  for (const part of record.parts) {
    if (part.kind !== 'entry') continue;
    foldedEntries += 1;
    if (document.includes(bytesById.get(part.entryId) ?? '\u0000missing')) peekedEntries += 1;
    else if (mismatches.length < 5) mismatches.push(`${record.id}/${part.entryId}`);
  }
}

let disposed = 'ok';
try {
  await runtime.dispose();
  await foldStore.dispose();
} catch (error) {
  disposed = error instanceof Error ? error.message : String(error);
}
clearInterval(sampler);
const report: LongSessionReport = {
  requests,
  served,
  entries: length,
  refusals,
  warnings: [...new Set(warnings)],
  folds: records.length,
  foldedEntries,
  peekedEntries,
  mismatches,
  peakOpenFiles,
  openFilesLimit,
  disposed,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
