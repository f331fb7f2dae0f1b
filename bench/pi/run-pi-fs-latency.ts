/**
 * Reply-to-request latency through a real Pi AgentSession on the filesystem store (the
 * default for a saved Pi session): the time from the scripted model's reply to the next
 * request it receives. Reference: the same scripted session with no pi-fold loaded (the host
 * alone); pi-fold's share is the difference. Every tool result is over the spill threshold,
 * so every request writes an artifact; the commit requests are reported on their own. The
 * target: p99 at most 25 ms and mean at most 5 ms above the host's own.
 * Run: `npm run bench:pi` (after the hook benchmark).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import { openScriptedHostAlone, openScriptedPi, type Script, settle } from '../../testing/pi/scripted-pi.ts';
import { latencyLine, latencyStats } from './latency-stats.ts';
import { replyOnArgument } from './reply-on-argument.ts';
import { timeCalls } from './time-calls.ts';

const REQUESTS = 95;
const RESULT_BYTES = 24 * 1024;
const WINDOW = 170_000;
const REPLY_ON = replyOnArgument();
const TARGET_MEAN_MS = 5;
const TARGET_P99_MS = 25;

/** Time every handler pi-fold registers; `busy` collects ms spent inside them. */
function timeEveryHandler(busy: { ms: number }): (pi: ExtensionAPI) => ExtensionAPI {
  return (pi) =>
    new Proxy(pi, {
      get(target, property, receiver) {
        if (property !== 'on') return Reflect.get(target, property, receiver);
        return (event: string, handler: (...args: unknown[]) => unknown) =>
          target.on(
            event as never,
            (async (...args: unknown[]) => {
              const started = performance.now();
              try {
                return await handler(...args);
              } finally {
                busy.ms += performance.now() - started;
              }
            }) as never,
          );
      },
    });
}

const line = (label: string, values: readonly number[]): string => latencyLine(label, values, 36);

/** Time each artifact write (they run off the request path; this says what they cost). */
function timedEvidence(store: EvidenceStore, writes: number[]): EvidenceStore {
  store.put = timeCalls(store.put.bind(store), writes);
  return store;
}

interface Run {
  readonly gaps: number[];
  readonly piFold: number[];
  /** Per gap: whether the request it ended landed a commit. */
  readonly commit: boolean[];
  readonly evidenceWrites: number[];
}

/** A script that reads `REQUESTS - 1` blobs, noting each gap between a reply and the next request. */
function timingScript(onGap: (gap: number, request: number) => void): Script {
  let replyAt: number | undefined;
  return (request) => {
    const now = performance.now();
    if (replyAt !== undefined) onGap(now - replyAt, request.index);
    // The reply leaves as soon as the script answers; what follows until the next call is host + pi-fold.
    replyAt = now;
    return request.index >= REQUESTS - 1
      ? { kind: 'text', text: 'done' }
      : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: RESULT_BYTES } }] };
  };
}

async function runHostAlone(): Promise<number[]> {
  const root = mkdtempSync(join(tmpdir(), 'pi-fold-fs-latency-'));
  const gaps: number[] = [];
  // Without pi-fold the whole transcript is sent; Pi's own compaction stays off so every request is one the script answers.
  const pi = await openScriptedHostAlone({
    script: timingScript((gap) => gaps.push(gap)),
    contextWindow: WINDOW,
    sessionDirectory: root,
    compaction: false,
    replyOn: REPLY_ON,
  });
  await pi.session.prompt('Read 94 blobs of 24 KB.');
  await settle(pi.session);
  pi.session.dispose();
  rmSync(root, { recursive: true, force: true });
  return gaps;
}

async function run(kind: 'memory' | 'fs'): Promise<Run> {
  const root = mkdtempSync(join(tmpdir(), 'pi-fold-fs-latency-'));
  const busy = { ms: 0 };
  const gaps: number[] = [];
  const piFold: number[] = [];
  const requestOfGap: number[] = [];
  const evidenceWrites: number[] = [];
  let busyAtReply = 0;
  const stores =
    kind === 'fs'
      ? {
          foldStore: new FsFoldStore({ root }),
          evidenceStore: timedEvidence(new FsEvidenceStore({ root }), evidenceWrites),
        }
      : { foldStore: new MemoryFoldStore(), evidenceStore: timedEvidence(new MemoryEvidenceStore(), evidenceWrites) };
  const script = timingScript((gap, request) => {
    gaps.push(gap);
    piFold.push(busy.ms - busyAtReply);
    requestOfGap.push(request);
  });
  const pi = await openScriptedPi({
    script: (request, history) => {
      const reply = script(request, history);
      busyAtReply = busy.ms;
      return reply;
    },
    fold: { ...stores, settingsPath: '/nonexistent/pi-fold/settings.json' },
    contextWindow: WINDOW,
    sessionDirectory: root,
    wrapExtensionApi: timeEveryHandler(busy),
    replyOn: REPLY_ON,
  });
  await pi.session.prompt('Read 94 blobs of 24 KB.');
  await settle(pi.session);
  pi.session.dispose();
  // Each projection's ledger row is the request with the same index.
  const commit = requestOfGap.map((request) => (pi.ledger[request]?.foldsLanded ?? 0) > 0);
  // Let the session's last writes (off the request path) finish before its directory goes.
  await pi.registration.sessions.closeAll();
  rmSync(root, { recursive: true, force: true });
  return { gaps, piFold, commit, evidenceWrites };
}

const pick = (values: readonly number[], keep: readonly boolean[], want: boolean) =>
  values.filter((_, index) => keep[index] === want);

console.log(
  `pi reply→request latency: ${REQUESTS} requests, ${RESULT_BYTES} B tool results (each one spilled), ${WINDOW}-token window, scripted replies on: ${REPLY_ON} (Node ${process.version})`,
);
const host = await runHostAlone();
console.log('host alone (no pi-fold):');
console.log(line('  reply → next request', host));
const runs = { memory: await run('memory'), fs: await run('fs') };
for (const kind of ['memory', 'fs'] as const) {
  const { gaps, piFold, commit, evidenceWrites } = runs[kind];
  console.log(`with pi-fold, ${kind} store:`);
  console.log(line('  reply → next request', gaps));
  console.log(line("  of which pi-fold's handlers", piFold));
  if (commit.some(Boolean)) {
    console.log(line("  pi-fold's handlers, commit requests", pick(piFold, commit, true)));
    console.log(line("  pi-fold's handlers, other requests", pick(piFold, commit, false)));
  }
  console.log(line('  artifact writes (off the request path)', evidenceWrites));
}
const withFold = latencyStats(runs.fs.gaps);
const alone = latencyStats(host);
const meanAbove = withFold.mean - alone.mean;
const p50Above = withFold.p50 - alone.p50;
const p99Above = withFold.p99 - alone.p99;
console.log(
  `fs store, pi-fold above the host alone: mean ${meanAbove.toFixed(2)} ms · p50 ${p50Above.toFixed(2)} ms · p99 ${p99Above.toFixed(2)} ms`,
);
const holds = meanAbove <= TARGET_MEAN_MS && p99Above <= TARGET_P99_MS;
console.log(
  `target: mean ≤ ${TARGET_MEAN_MS} ms and p99 ≤ ${TARGET_P99_MS} ms above the host alone — ${holds ? 'holds' : 'does NOT hold'} on this run (one run on a shared machine; load average ${loadAverage()})`,
);

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(', ');
}
