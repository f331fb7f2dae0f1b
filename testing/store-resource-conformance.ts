import { readdirSync } from 'node:fs';
import type { FoldStore } from '../ports/fold-store.port.ts';
import { check, checkEqual, checkSameBytes, randomId } from './conformance-support.ts';
import { sampleEngineState, sampleFoldRecord } from './store-fixtures.ts';

/**
 * A backend that accepts connections and never answers (a paused server, a wedged proxy), as
 * a store of yours meets it: `open` builds a store on it; each call must fail within about
 * `deadlineMs` with a `STORE.*` error, and `dispose` must return, holding nothing open.
 */
export interface UnansweringBackend {
  open(): FoldStore | Promise<FoldStore>;
  readonly deadlineMs: number;
}

/** Options of the resource cases (a part of `FoldStoreConformanceOptions`). */
export interface StoreResourceOptions {
  /** Prove calls and dispose end on a backend that does not answer. Omit when there is no such backend to build. */
  readonly unanswering?: UnansweringBackend;
}

/** Blobs a long session's commit may hand a store at once (one per folded entry). */
const MANY_BLOBS = 1_500;
/** More descriptors than this open at once, over the store's resting count, fails the case. */
const DESCRIPTOR_HEADROOM = 128;
/** Store calls under way at once, as the engine makes them. */
const CALLS_IN_FLIGHT = 8;

type DefineCase = (name: string, body: (store: FoldStore) => Promise<void>) => void;

/**
 * What a store may hold of the process: a bounded number of open files (or connections)
 * whatever the session's size, and no wait without end on a backend that stops answering.
 */
export function resourceCases(define: DefineCase, options: StoreResourceOptions): void {
  define(`${MANY_BLOBS} blobs, a record and a state land with a bounded number of open descriptors`, async (store) => {
    const sampler = descriptorSampler();
    try {
      const texts = Array.from({ length: MANY_BLOBS }, (_, index) => `${randomId('blob')} entry ${index}`);
      const shas: string[] = [];
      for (let next = 0; next < texts.length; next += CALLS_IN_FLIGHT) {
        const batch = texts.slice(next, next + CALLS_IN_FLIGHT);
        shas.push(...(await Promise.all(batch.map((text) => store.putBlob(text)))));
      }
      await store.flushBlobs?.();
      const sessionId = randomId('session');
      const record = sampleFoldRecord();
      await store.putFold(sessionId, record);
      await store.saveState(sessionId, { ...sampleEngineState(sessionId), foldIds: [record.id] });
      for (const index of [0, MANY_BLOBS >> 1, MANY_BLOBS - 1])
        checkSameBytes(await store.getBlob(shas[index]!), Buffer.from(texts[index]!, 'utf8'), `blob ${index}`);
      checkEqual((await store.loadState(sessionId))?.foldIds.join(','), record.id, 'state after the batch');
    } finally {
      sampler.stop();
    }
    const grown = sampler.peak - sampler.baseline;
    check(
      grown <= DESCRIPTOR_HEADROOM,
      `the store held ${grown} more descriptors at once than at rest while writing ${MANY_BLOBS} blobs; a store must bound its fan-out (at most ${DESCRIPTOR_HEADROOM}), or a long session runs out of open files`,
    );
  });

  const unanswering = options.unanswering;
  if (unanswering === undefined) return;
  define('a backend that never answers: each call fails within its deadline, and dispose returns', async () => {
    const socketsBefore = openSockets();
    const store = await unanswering.open();
    const limit = unanswering.deadlineMs * 4 + 1_000;
    const calls: [string, () => Promise<unknown>][] = [
      ['loadState', () => store.loadState(randomId('session'))],
      ['putBlob', () => store.putBlob(randomId('blob'))],
      ['getFold', () => store.getFold(randomId('session'), 'fold_000000000000000000000001')],
    ];
    for (const [name, call] of calls) {
      const outcome = await settleWithin(call(), limit);
      check(outcome !== 'hung', `${name} on a backend that never answers was still waiting after ${limit} ms`);
      check(outcome.status === 'rejected', `${name} on a backend that never answers resolved`);
      const code = (outcome.reason as { code?: unknown }).code;
      check(typeof code === 'string' && code.startsWith('STORE.'), `${name} failed with ${String(code)}, not STORE.*`);
    }
    check((await settleWithin(Promise.resolve(store.dispose?.()), limit)) !== 'hung', 'dispose() did not return');
    // A socket is let go on a later turn of the loop; one still open after that holds the process open.
    for (let turn = 0; turn < 50 && openSockets() > socketsBefore; turn += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    check(
      openSockets() <= socketsBefore,
      `dispose() left ${openSockets() - socketsBefore} socket(s) open to the backend that never answers`,
    );
  });
}

/** TCP sockets this process holds open. */
function openSockets(): number {
  return process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;
}

/** How `promise` settled, or 'hung' when it had not after `ms`. */
async function settleWithin<T>(promise: Promise<T>, ms: number): Promise<PromiseSettledResult<T> | 'hung'> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<'hung'>((resolve) => {
    timer = setTimeout(() => resolve('hung'), ms);
  });
  try {
    const [settled] = await Promise.race([Promise.allSettled([promise]), hung.then((value) => [value] as const)]);
    return settled;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The process's open descriptors, sampled on a timer while a case runs (Linux `/proc/self/fd`;
 * elsewhere nothing is counted and the bound is not checked). A sample can only miss a
 * moment's peak, never invent one.
 */
function descriptorSampler(): DescriptorSampler {
  const count = (): number | undefined => {
    try {
      return readdirSync('/proc/self/fd').length;
    } catch {
      return undefined;
    }
  };
  const baseline = count() ?? 0;
  const sampler: DescriptorSampler = { baseline, peak: baseline, stop: () => undefined };
  if (count() === undefined) return sampler;
  const timer = setInterval(() => {
    sampler.peak = Math.max(sampler.peak, count() ?? 0);
  }, 1);
  sampler.stop = () => {
    clearInterval(timer);
    sampler.peak = Math.max(sampler.peak, count() ?? 0);
  };
  return sampler;
}

interface DescriptorSampler {
  readonly baseline: number;
  peak: number;
  stop(): void;
}
