import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { collectGarbage } from '../../application/retention/store-gc.ts';
import {
  BlobPrewrites,
  type BlobToStore,
  PREWRITE_FRESH_MS,
  PREWRITES_IN_FLIGHT,
} from '../../core/commit/apply/blob-prewrites.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import { sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

/**
 * The blobs of pending marks are written ahead of their commit, off the request path
 * (core/commit/apply/blob-prewrites.ts): the commit request finds them put, read back and flushed, and
 * writes only its records. The store here logs every blob put, blob read, flush and record in
 * order, each tagged with the request under way.
 */
type Logged =
  | { readonly kind: 'put' | 'read'; readonly sha256: string; readonly request: number }
  | { readonly kind: 'flush'; readonly request: number }
  | { readonly kind: 'fold'; readonly record: FoldRecord; readonly request: number };

class LoggingStore extends MemoryFoldStore {
  readonly log: Logged[] = [];
  request = 0;

  override async putBlob(content: string | Uint8Array): Promise<string> {
    const sha256 = await super.putBlob(content);
    this.log.push({ kind: 'put', sha256, request: this.request });
    return sha256;
  }

  override async getBlob(sha256: string): Promise<Uint8Array> {
    this.log.push({ kind: 'read', sha256, request: this.request });
    return super.getBlob(sha256);
  }

  async flushBlobs(): Promise<void> {
    this.log.push({ kind: 'flush', request: this.request });
  }

  override async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    this.log.push({ kind: 'fold', record, request: this.request });
    await super.putFold(sessionId, record);
  }
}

const entryShas = (record: FoldRecord) => record.parts.flatMap((part) => (part.kind === 'entry' ? [part.sha256] : []));
const turns = async (count = 20) => {
  for (let turn = 0; turn < count; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

async function runSession(store: LoggingStore, requestTime: (step: number) => number | undefined) {
  const runtime = await FoldRuntime.open({
    sessionId: 'session-prewrite',
    settings: resolveSettings({ providerInputBudget: 18_000 }),
    foldStore: store,
    costModel: createCharsCostModel(),
  });
  const session = new SyntheticSession({ seed: 3, resultChars: [2_000, 6_000], noteShare: 0 });
  /** Mark ids pending when each request began (a mark keeps its id as a fold). */
  const pendingBefore: Set<string>[] = [];
  for (let step = 1; step <= 80; step += 1) {
    session.step();
    store.request = step;
    pendingBefore[step] = new Set(runtime.view.memory.marks.map((mark) => mark.id));
    const time = requestTime(step);
    await runtime.project(session.entries, time === undefined ? {} : { requestTime: time });
    // The next reply takes a moment: the background writes get their turns.
    store.request = step + 0.5;
    await turns();
  }
  await runtime.dispose();
  return pendingBefore;
}

describe('blobs of pending marks are written before their commit', () => {
  it('a commit request writes and reads back no blob of a mark that was pending before it; each was put, read back and flushed earlier', async () => {
    const store = new LoggingStore();
    const pendingBefore = await runSession(store, (step) => 1_000_000 + step * 1_000);
    const folds = store.log.flatMap((event, at) =>
      event.kind === 'fold' && pendingBefore[event.request]?.has(event.record.id) ? [{ event, at }] : [],
    );
    expect(folds.length, 'some commits landed marks that were pending before their request').toBeGreaterThan(0);
    for (const { event, at } of folds) {
      for (const sha256 of entryShas(event.record)) {
        const touching = store.log.filter(
          (logged) =>
            logged.kind !== 'flush' &&
            logged.kind !== 'fold' &&
            logged.sha256 === sha256 &&
            logged.request === event.request,
        );
        expect(
          touching,
          `blob ${sha256.slice(0, 8)} of ${event.record.id} was not written again by its commit request`,
        ).toEqual([]);
        const put = store.log.findIndex((logged) => logged.kind === 'put' && logged.sha256 === sha256);
        const read = store.log.findIndex(
          (logged, index) => index > put && logged.kind === 'read' && logged.sha256 === sha256,
        );
        const flush = store.log.findIndex((logged, index) => index > read && logged.kind === 'flush');
        expect(put, 'put ahead').toBeGreaterThanOrEqual(0);
        expect(read, 'read back after its put').toBeGreaterThan(put);
        expect(flush, 'flushed after its read-back').toBeGreaterThan(read);
        expect(flush, 'all of it before the record').toBeLessThan(at);
      }
    }
  });

  it('without a request time (no host clock) nothing is written ahead: each commit writes and reads back its own blobs', async () => {
    const store = new LoggingStore();
    await runSession(store, () => undefined);
    const folds = store.log.filter((event) => event.kind === 'fold');
    expect(folds.length).toBeGreaterThan(0);
    for (const fold of folds) {
      for (const sha256 of entryShas(fold.record)) {
        const kinds = store.log
          .filter(
            (logged) =>
              logged.kind !== 'flush' &&
              logged.kind !== 'fold' &&
              logged.sha256 === sha256 &&
              logged.request <= fold.request,
          )
          .map((logged) => logged.kind);
        expect(kinds, 'put and read back by a commit request, never between requests').toContain('put');
        expect(
          store.log.some(
            (logged) => logged.kind === 'put' && logged.sha256 === sha256 && !Number.isInteger(logged.request),
          ),
        ).toBe(false);
      }
    }
  });
});

const blob = (text: string): BlobToStore => ({ sha256: sha256Hex(text), bytes: text, entryId: `entry-${text.length}` });

describe('BlobPrewrites', () => {
  it('startLater collects on the next turn, the newest collection only; a commit or settle first runs one still waiting', async () => {
    const store = new LoggingStore();
    const prewrites = new BlobPrewrites();
    const collected: string[] = [];
    const puts = () => store.log.flatMap((logged) => (logged.kind === 'put' ? [logged.sha256] : []));
    const [one, two, three, four, five] = ['a', 'bb', 'ccc', 'dddd', 'eeeee'].map((text) => blob(`${text} blob`));
    prewrites.startLater(store, () => (collected.push('first'), [one!]), 1);
    prewrites.startLater(store, () => (collected.push('second'), [one!, two!]), 2);
    expect(collected, 'nothing is collected inside the request that asked').toEqual([]);
    await turns(1);
    expect(collected).toEqual(['second']);
    await prewrites.settle();
    expect(puts().sort()).toEqual([one!.sha256, two!.sha256].sort());
    expect([...(await prewrites.readyAmong([one!.sha256, two!.sha256], 2))].sort()).toEqual(
      [one!.sha256, two!.sha256].sort(),
    );

    // A commit before the turn: the waiting collection runs, the commit takes back the blob it writes itself.
    prewrites.startLater(store, () => (collected.push('third'), [three!, four!]), 3);
    expect([...(await prewrites.readyAmong([three!.sha256], 3))]).toEqual([]);
    expect(collected).toEqual(['second', 'third']);
    await prewrites.settle();
    expect(puts()).toContain(four!.sha256);
    expect(puts()).not.toContain(three!.sha256);

    // settle writes what is still waiting to be collected.
    prewrites.startLater(store, () => (collected.push('fourth'), [five!]), 4);
    await prewrites.settle();
    expect(collected).toEqual(['second', 'third', 'fourth']);
    expect(puts()).toContain(five!.sha256);
    // Without a request time nothing is collected at all.
    prewrites.startLater(store, () => (collected.push('untimed'), []), undefined);
    await turns(3);
    expect(collected).toEqual(['second', 'third', 'fourth']);
  });

  it('a blob written ahead counts for a commit only within PREWRITE_FRESH_MS (gc keeps unreferenced blobs only within its grace)', async () => {
    const store = new MemoryFoldStore();
    const prewrites = new BlobPrewrites();
    const one = blob('first blob');
    prewrites.start(store, [one], 10_000);
    await prewrites.settle();
    expect(await store.hasBlob(one.sha256)).toBe(true);
    expect([...(await prewrites.readyAmong([one.sha256], 10_000 + PREWRITE_FRESH_MS))]).toEqual([one.sha256]);
    expect([...(await prewrites.readyAmong([one.sha256], 10_000 + PREWRITE_FRESH_MS + 1))]).toEqual([]);
    // A clock that went back is not trusted.
    expect([...(await prewrites.readyAmong([one.sha256], 9_999))]).toEqual([]);
  });

  it('a commit takes queued blobs back instead of waiting behind the queue, and waits for those under way', async () => {
    const gates: (() => void)[] = [];
    const store = new (class extends MemoryFoldStore {
      override async putBlob(content: string | Uint8Array): Promise<string> {
        await new Promise<void>((resolve) => gates.push(resolve));
        return super.putBlob(content);
      }
    })();
    const prewrites = new BlobPrewrites();
    const blobs = Array.from({ length: PREWRITES_IN_FLIGHT + 3 }, (_, index) => blob(`blob number ${index}`));
    prewrites.start(store, blobs, 1);
    await turns();
    expect(gates.length, 'as many writes under way as workers, three queued').toBe(PREWRITES_IN_FLIGHT);
    const ready = prewrites.readyAmong(
      blobs.map((item) => item.sha256),
      2,
    );
    while (gates.length > 0) {
      gates.shift()!();
      await turns();
    }
    const underWay = blobs.slice(0, PREWRITES_IN_FLIGHT);
    expect([...(await ready)].sort()).toEqual(underWay.map((item) => item.sha256).sort());
    await prewrites.settle();
    const written = await Promise.all(blobs.map((item) => store.hasBlob(item.sha256)));
    expect(written, 'the queued ones were left to the commit').toEqual([
      ...underWay.map(() => true),
      false,
      false,
      false,
    ]);
  });

  it('a write the store refuses is not ready (the commit writes it and meets the error itself)', async () => {
    const refused = blob('a blob the disk has no room for');
    const store = new (class extends MemoryFoldStore {
      override async putBlob(content: string | Uint8Array): Promise<string> {
        if (content === refused.bytes) throw new Error('ENOSPC');
        return super.putBlob(content);
      }
    })();
    const prewrites = new BlobPrewrites();
    const fine = blob('a blob that fits');
    prewrites.start(store, [refused, fine], 1);
    await prewrites.settle();
    expect([...(await prewrites.readyAmong([refused.sha256, fine.sha256], 2))]).toEqual([fine.sha256]);
  });

  it("gc removes the blobs of a mark that never commits, once its grace has passed, and keeps a committed fold's", async () => {
    const store = new MemoryFoldStore();
    const prewrites = new BlobPrewrites();
    const orphan = blob('bytes of a dropped mark');
    const kept = blob('bytes of a committed fold');
    prewrites.start(store, [orphan, kept], Date.now());
    await prewrites.settle();
    const withKept: FoldRecord = {
      ...sampleFoldRecord(),
      parts: [{ kind: 'entry', entryId: kept.entryId, sha256: kept.sha256, chars: kept.bytes.length }],
    };
    await store.putFold('session-gc', withKept);
    const recent = await collectGarbage(store);
    expect(recent.deleted.count, 'within the grace period nothing is deleted').toBe(0);
    const later = await collectGarbage(store, { now: () => Date.now() + 2 * 60 * 60 * 1000 });
    expect(later.deleted.count).toBe(1);
    expect(await store.hasBlob(orphan.sha256)).toBe(false);
    expect(await store.hasBlob(kept.sha256)).toBe(true);
  });
});
