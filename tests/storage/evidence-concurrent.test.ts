import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { ARTIFACT_WRITES_IN_FLIGHT, EvidenceWrites } from '../../core/spill/evidence-writes.ts';
import type { SpilledPart } from '../../core/spill/spill-plan.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { EvidenceReference, EvidenceStore } from '../../ports/evidence-store.port.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * Artifacts are written side by side on a store that reserves its cap with no await between
 * check and reservation (`concurrentPuts`, the fs store), one at a time on any other.
 */
const scratch = await scratchDirectory('evidence-concurrent');
afterAll(() => removeScratch(scratch), 60_000);

describe('fs evidence store: puts under way together', () => {
  test('two puts that fit the cap one at a time but not together: exactly one is refused, and only its bytes are given back', async () => {
    const store = new FsEvidenceStore({ root: join(scratch, 'cap'), capBytes: 100 });
    const outcomes = await Promise.allSettled([
      store.put('session-cap', 'a'.repeat(60)),
      store.put('session-cap', 'b'.repeat(60)),
    ]);
    expect(outcomes.map((outcome) => outcome.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(String((outcomes.find((outcome) => outcome.status === 'rejected') as PromiseRejectedResult).reason)).toMatch(
      /STORE.CAP_REACHED/,
    );
    await expect(store.put('session-cap', 'c'.repeat(40))).resolves.toMatchObject({ bytes: 40 });
    await expect(store.put('session-cap', 'd')).rejects.toThrow(/STORE.CAP_REACHED/);
    // The same bytes again (already stored) are never refused, and reserve nothing.
    await expect(store.put('session-cap', 'a'.repeat(60))).resolves.toBeDefined();
    expect(await store.usage('session-cap')).toBe(100);
  });

  test('the same artifact put twice at once is stored once and counted once', async () => {
    const store = new FsEvidenceStore({ root: join(scratch, 'twice'), capBytes: 100 });
    const [first, second] = await Promise.all([
      store.put('session-twice', 'x'.repeat(70)),
      store.put('session-twice', 'x'.repeat(70)),
    ]);
    expect(first.sha256).toBe(second.sha256);
    await expect(store.put('session-twice', 'y'.repeat(30))).resolves.toBeDefined();
    expect(await store.usage('session-twice')).toBe(100);
  });
});

/** Holds every put until released; counts how many are under way at once. */
class GatedStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'gated';
  readonly gates: (() => void)[] = [];
  underWay = 0;
  most = 0;
  constructor(readonly concurrentPuts: boolean) {}
  async put(_sessionId: string, content: Uint8Array | string): Promise<EvidenceReference> {
    this.underWay += 1;
    this.most = Math.max(this.most, this.underWay);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    this.underWay -= 1;
    const text = typeof content === 'string' ? content : Buffer.from(content).toString('utf8');
    return { uri: 'gated://', sha256: sha256Hex(text), bytes: text.length };
  }
  get(): Promise<Uint8Array> {
    throw new Error('not read here');
  }
  async usage(): Promise<number> {
    return 0;
  }
}

const part = (index: number): SpilledPart => {
  const content = `artifact ${index} `.repeat(100);
  return { content, pointer: { id: `spill-${index}`, sha256: sha256Hex(content) } } as unknown as SpilledPart;
};

async function drive(store: GatedStore): Promise<void> {
  const writes = new EvidenceWrites();
  for (let index = 0; index < 10; index += 1) writes.start(store, 'session-gated', part(index));
  let done = false;
  const durable = writes.durable().then(() => (done = true));
  while (!done) {
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    store.gates.shift()?.();
  }
  await durable;
}

describe('evidence writes: side by side only where the store allows it', () => {
  test(`a store with concurrentPuts gets up to ${ARTIFACT_WRITES_IN_FLIGHT} writes at once; one without gets one at a time`, async () => {
    const concurrent = new GatedStore(true);
    await drive(concurrent);
    expect(concurrent.most).toBe(ARTIFACT_WRITES_IN_FLIGHT);
    const serial = new GatedStore(false);
    await drive(serial);
    expect(serial.most).toBe(1);
  });
});
