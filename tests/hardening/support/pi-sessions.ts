import { join } from 'node:path';
import type { SessionManager } from '@mariozechner/pi-coding-agent';
import { FsEvidenceStore } from '../../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { PiEntryMapper } from '../../../adapters/hosts/pi/message-entries.ts';
import type { ProjectionSink } from '../../../ports/projection-sink.port.ts';
import { FaultSwitch, FaultyEvidenceStore, FaultyFoldStore } from '../../../testing/faulty-stores.ts';
import { openScriptedPi, type RecordedRequest, type ScriptedReply } from '../../../testing/pi/scripted-pi.ts';

/**
 * A serving budget small enough that a dozen 18 KB reads cross maxTarget and commit. Each read
 * is spilled (docs/behaviour.md B6.2: so each one also writes evidence) but keeps 15 KB of itself in the
 * window, so the window still fills at about the pace of whole reads.
 */
export const SMALL_BUDGET_SETTINGS = {
  providerInputBudget: 60_000,
  spill: { thresholdBytes: 16_384, keepBytes: 15_360 },
} as const;

/** A tool result a little over the spill threshold (16 KiB), so each read also writes evidence. */
export const READ_SIZE = 18_000;

/**
 * The scripted model: for each prompt, read one blob per request `reads()` times, then answer
 * and stop. `reads` is asked at the start of every prompt, so a test can vary it per phase.
 */
export function readingScript(
  reads: () => number,
): (request: RecordedRequest, history: readonly RecordedRequest[]) => ScriptedReply {
  let count = 0;
  let seed = 0;
  return () => {
    count += 1;
    if (count > reads()) {
      count = 0;
      return { kind: 'text', text: 'done reading' };
    }
    seed += 1;
    return { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed, size: READ_SIZE } }] };
  };
}

/** The default stores a Pi session gets beside its session file (what registerPiFold builds). */
export function sessionStores(sessionDirectory: string): {
  foldStore: FsFoldStore;
  evidenceStore: FsEvidenceStore;
  root: string;
} {
  const root = join(sessionDirectory, 'pi-fold');
  return { foldStore: new FsFoldStore({ root }), evidenceStore: new FsEvidenceStore({ root }), root };
}

/**
 * Every message entry of the session's active branch, as canonical bytes by entry id, mapped
 * by the adapter's own mapper from what Pi wrote to the session file: the originals a fold
 * must give back byte for byte.
 */
export function branchBytes(sessionManager: SessionManager): Map<string, string> {
  const branch = sessionManager.getBranch();
  const messages = branch.flatMap((entry) => (entry.type === 'message' ? [entry.message] : []));
  const mapped = new PiEntryMapper().map(messages, branch);
  return new Map(mapped.entries.map((entry) => [entry.id, entry.bytes]));
}

/**
 * A process killed while a tool ran leaves its call in the session file with no result. That
 * gap is the transcript's own, and Pi repairs it on the wire (pi-ai inserts a "No result
 * provided" result for an orphaned call); pi-fold must only never make a new one. So a pairing
 * violation is excused only when every call it names has no result anywhere in the branch,
 * or (a damaged file that lost an assistant message) the result answers a call the branch
 * never made.
 * Returns the violations that remain and how many were excused.
 */
export function withoutHostOrphans(
  violations: readonly string[],
  sessionManager: Pick<SessionManager, 'getBranch'>,
): { violations: string[]; orphans: number } {
  const answered = new Set<string>();
  const called = new Set<string>();
  for (const entry of sessionManager.getBranch()) {
    if (entry.type !== 'message') continue;
    if (entry.message.role === 'toolResult') answered.add(entry.message.toolCallId);
    if (entry.message.role === 'assistant')
      for (const block of entry.message.content) if (block.type === 'toolCall') called.add(block.id);
  }
  const remaining: string[] = [];
  let orphans = 0;
  for (const violation of violations) {
    const match = /arrives while calls (.+) have no result$/.exec(violation);
    const ids = match === null ? [] : match[1]!.split(', ');
    // The mirror case: damage that lost the assistant message leaves a result whose call the branch never made.
    const stray = /answers (.+) with no open call$/.exec(violation);
    if (ids.length > 0 && ids.every((id) => !answered.has(id))) orphans += 1;
    else if (stray !== null && !called.has(stray[1]!)) orphans += 1;
    else remaining.push(violation);
  }
  return { violations: remaining, orphans };
}

/**
 * A real Pi session on the small budget, reading `reads()` blobs a prompt, whose fold and
 * evidence stores pass through one fault switch: `faults.refuse()` fills the disk for both.
 */
export async function openPiOnFaultyDisk(
  sessionDirectory: string,
  reads: () => number,
  projectionSink?: ProjectionSink,
): Promise<{ pi: Awaited<ReturnType<typeof openScriptedPi>>; faults: FaultSwitch; realFolds: FsFoldStore }> {
  const { foldStore: realFolds, evidenceStore: realEvidence } = sessionStores(sessionDirectory);
  const faults = new FaultSwitch();
  const pi = await openScriptedPi({
    script: readingScript(reads),
    sessionDirectory,
    fold: {
      foldStore: new FaultyFoldStore(realFolds, { faults }),
      evidenceStore: new FaultyEvidenceStore(realEvidence, { faults }),
      settings: SMALL_BUDGET_SETTINGS,
      settingsPath: join(sessionDirectory, 'absent-settings.json'),
      ...(projectionSink === undefined ? {} : { projectionSink }),
    },
  });
  return { pi, faults, realFolds };
}
