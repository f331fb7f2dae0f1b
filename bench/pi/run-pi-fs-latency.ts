/**
 * Reply-to-request latency through a real Pi AgentSession on the filesystem store (the
 * default for a saved Pi session): the time from the scripted model's reply to the next
 * request it receives, and how much of it is pi-fold's own handlers (every event pi-fold
 * registered, summed per gap). The host's own share is the gap less pi-fold's. Reference:
 * the same run on the memory store. Run: `npm run bench:pi` (after the hook benchmark).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { FsEvidenceStore } from '../../adapters/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import { MemoryEvidenceStore } from '../../adapters/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';

const REQUESTS = 95;
const RESULT_BYTES = 24 * 1024;
const WINDOW = 170_000;

/** Time every handler pi-fold registers; `busy` collects ms spent inside them. */
function timeEveryHandler(busy: { ms: number }): (pi: ExtensionAPI) => ExtensionAPI {
  return (pi) =>
    new Proxy(pi, {
      get(target, property, receiver) {
        if (property !== 'on') return Reflect.get(target, property, receiver);
        return (event: string, handler: (...args: unknown[]) => unknown) =>
          target.on(event as never, (async (...args: unknown[]) => {
            const started = performance.now();
            try {
              return await handler(...args);
            } finally {
              busy.ms += performance.now() - started;
            }
          }) as never);
      },
    });
}

function stats(values: readonly number[]): { mean: number; p50: number; p99: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: sorted[Math.floor(sorted.length / 2)]!,
    p99: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!,
    max: sorted.at(-1)!,
  };
}

const line = (label: string, values: readonly number[]) => {
  const { mean, p50, p99, max } = stats(values);
  return `${label.padEnd(36)} mean ${mean.toFixed(2)} ms · p50 ${p50.toFixed(2)} ms · p99 ${p99.toFixed(2)} ms · max ${max.toFixed(2)} ms (n=${values.length})`;
};

async function run(kind: 'memory' | 'fs'): Promise<{ gaps: number[]; piFold: number[] }> {
  const root = mkdtempSync(join(tmpdir(), 'pi-fold-fs-latency-'));
  const busy = { ms: 0 };
  const replyAt: number[] = [];
  const gaps: number[] = [];
  const piFold: number[] = [];
  let busyAtReply = 0;
  const stores = kind === 'fs' ? { foldStore: new FsFoldStore({ root }), evidenceStore: new FsEvidenceStore({ root }) } : { foldStore: new MemoryFoldStore(), evidenceStore: new MemoryEvidenceStore() };
  const pi = await openScriptedPi({
    script: (request) => {
      const now = performance.now();
      if (replyAt.length > 0) {
        gaps.push(now - replyAt.at(-1)!);
        piFold.push(busy.ms - busyAtReply);
      }
      // The reply leaves as soon as the script answers; what follows until the next call is host + pi-fold.
      replyAt.push(now);
      busyAtReply = busy.ms;
      return request.index >= REQUESTS - 1 ? { kind: 'text', text: 'done' } : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: RESULT_BYTES } }] };
    },
    fold: { ...stores, settingsPath: '/nonexistent/pi-fold/settings.json' },
    contextWindow: WINDOW,
    sessionDirectory: root,
    wrapExtensionApi: timeEveryHandler(busy),
  });
  await pi.session.prompt('Read 94 blobs of 24 KB.');
  await settle(pi.session);
  pi.session.dispose();
  rmSync(root, { recursive: true, force: true });
  return { gaps, piFold };
}

console.log(`pi reply→request latency: ${REQUESTS} requests, ${RESULT_BYTES} B tool results, ${WINDOW}-token window (Node ${process.version})`);
for (const kind of ['memory', 'fs'] as const) {
  const { gaps, piFold } = await run(kind);
  console.log(`${kind} store:`);
  console.log(line('  reply → next request', gaps));
  console.log(line("  of which pi-fold's handlers", piFold));
  console.log(line("  host's own (gap − pi-fold)", gaps.map((gap, index) => gap - piFold[index]!)));
}
