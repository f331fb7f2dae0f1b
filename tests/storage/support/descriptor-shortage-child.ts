/**
 * A session on the fs stores meets a process that has used up its open files (something else
 * in the host holds them: here, descriptors of /dev/null opened until the kernel says EMFILE).
 * Run under a small `ulimit -n`. Prints one JSON line (`ShortageReport`) on stdout:
 *
 * 1. a brief shortage (the descriptors are let go 150 ms in): a blob write and its read back
 *    wait it out and succeed;
 * 2. a lasting one: a request that needs a commit to fit is refused, and the refusal and the
 *    warning say what is wrong and how to lift it;
 * 3. the descriptors are let go: the next requests are served, folds land, and every folded
 *    entry peeks byte for byte; dispose() works.
 *
 *   node --import tsx descriptor-shortage-child.ts <root>
 */
import { closeSync, openSync } from 'node:fs';
import { FsEvidenceStore } from '../../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { FoldError } from '../../../core/fold-error.ts';
import { FoldRuntime } from '../../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../../core/settings/settings.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { FoldWarning } from '../../../ports/fold-warning.ts';
import { readRounds } from './read-rounds.ts';

export interface ShortageReport {
  /** Phase 1: what a blob write and read back came to while descriptors were short for 150 ms. */
  readonly briefShortage: string;
  readonly heldDescriptors: number;
  /** Phase 2: the refusal of the request that needed a commit. */
  readonly refusal: { readonly code: string; readonly message: string; readonly remedy: unknown } | undefined;
  readonly warnings: readonly FoldWarning[];
  /** Phase 3: requests after the descriptors were let go. */
  readonly requestsAfter: number;
  readonly servedAfter: number;
  readonly foldsAfter: number;
  readonly foldsBefore: number;
  readonly peekMismatches: number;
  readonly peekedEntries: number;
  readonly disposed: string;
}

const [root] = process.argv.slice(2);
if (root === undefined) {
  console.error('usage: descriptor-shortage-child.ts <root>');
  process.exit(2);
}

/** Open /dev/null until the process has no descriptor left; returns them, to be let go later. */
function holdEveryDescriptor(): number[] {
  const held: number[] = [];
  for (;;) {
    try {
      held.push(openSync('/dev/null', 'r'));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EMFILE') return held;
      throw error;
    }
  }
}

const letGo = (held: number[]) => {
  for (const descriptor of held.splice(0)) closeSync(descriptor);
};

const branch = readRounds(900, 300);
const foldStore = new FsFoldStore({ root });
const warnings: FoldWarning[] = [];
const runtime = await FoldRuntime.open({
  sessionId: 'short-of-files',
  settings: resolveSettings({ providerInputBudget: 12_000 }),
  foldStore,
  evidenceStore: new FsEvidenceStore({ root }),
  costModel: createCharsCostModel(),
});
runtime.subscribe({ accept: () => undefined, acceptWarning: (warning) => void warnings.push(warning) });

async function serve(length: number): Promise<FoldError | undefined> {
  try {
    const result = await runtime.project(branch.slice(0, length));
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 10 });
    return undefined;
  } catch (error) {
    if (FoldError.isInstance(error)) return error;
    throw error;
  }
}

// The session runs a while first, so it has folds and a window near its budget.
let length = 0;
while (length < 450) {
  length += 3;
  const refused = await serve(length);
  if (refused !== undefined) throw refused;
}
const foldsBefore = runtime.view.lattice.size;

// 1. A brief shortage: let go after 150 ms, while a write is waiting for a descriptor.
const brief = holdEveryDescriptor();
const heldDescriptors = brief.length;
setTimeout(() => letGo(brief), 150);
let briefShortage = 'ok';
try {
  const bytes = `a blob written while the process is short of files ${Date.now()}`;
  const stored = await foldStore.putBlob(bytes);
  if (stored !== sha256Hex(bytes)) briefShortage = `filed under ${stored}`;
  else if (Buffer.from(await foldStore.getBlob(stored)).toString('utf8') !== bytes) briefShortage = 'read back differs';
} catch (error) {
  briefShortage = error instanceof Error ? error.message : String(error);
}
letGo(brief);

// 2. A lasting shortage: a jump of 150 entries cannot fit without a commit, which cannot land.
const lasting = holdEveryDescriptor();
length += 150;
const refused = await serve(length);
letGo(lasting);
const refusal =
  refused === undefined ? undefined : { code: refused.code, message: refused.message, remedy: refused.details.remedy };

// 3. The limit is lifted: the same request and the ones after it are served.
let requestsAfter = 0;
let servedAfter = 0;
for (; length <= branch.length; length += 3) {
  requestsAfter += 1;
  if ((await serve(length)) === undefined) servedAfter += 1;
}

const bytesById = new Map(branch.map((entry) => [entry.id, entry.bytes]));
let peekMismatches = 0;
let peekedEntries = 0;
for (const record of runtime.view.lattice.allRecords()) {
  let text = '';
  for (let offset: number | undefined = 0; offset !== undefined; ) {
    const answer = await runtime.act({ action: 'peek', id: record.id, offset, bytes: 200_000 });
    text += answer.text;
    offset = answer.data.nextOffset as number | undefined;
  }
  for (const part of record.parts) {
    if (part.kind !== 'entry') continue;
    if (text.includes(bytesById.get(part.entryId) ?? '\u0000')) peekedEntries += 1;
    else peekMismatches += 1;
  }
}

let disposed = 'ok';
try {
  await runtime.dispose();
  await foldStore.dispose();
} catch (error) {
  disposed = error instanceof Error ? error.message : String(error);
}
const report: ShortageReport = {
  briefShortage,
  heldDescriptors,
  refusal,
  warnings,
  requestsAfter,
  servedAfter,
  foldsAfter: runtime.view.lattice.size,
  foldsBefore,
  peekMismatches,
  peekedEntries,
  disposed,
};
process.stdout.write(`${JSON.stringify(report)}\n`);
