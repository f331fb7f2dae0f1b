import { describe, expect, it } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import { createCharsCostModel } from '../../core/chars-cost-model.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { resolveSettings } from '../../core/settings.ts';
import type { EvidenceReference, EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { EngineState, FoldRecord } from '../../ports/fold-records.ts';
import { SyntheticSession, toolResultEntry, userEntry, assistantEntry } from '../../testing/synthetic-session.ts';

/**
 * Evidence writes are off the request path, yet durable before anything refers to them
 * (docs/behaviour.md B6.2): a request goes out while its artifact is still being written,
 * and no fold record or state reaches the store before every artifact started earlier is
 * stored. The stores here log every write in order; the evidence store holds each artifact
 * until the test lets it through, as a slow disk would.
 */

type Event = { readonly kind: 'evidence-start' | 'evidence-durable'; readonly sha256: string } | { readonly kind: 'fold'; readonly id: string } | { readonly kind: 'state' };

class OrderLog {
  readonly events: Event[] = [];

  /** Fold records and states written while an artifact started before them was not yet stored. */
  referencesBeforeDurable(): string[] {
    const open = new Set<string>();
    const violations: string[] = [];
    for (const event of this.events) {
      if (event.kind === 'evidence-start') open.add(event.sha256);
      else if (event.kind === 'evidence-durable') open.delete(event.sha256);
      else if (open.size > 0) violations.push(`${event.kind === 'fold' ? `fold ${event.id}` : 'a state'} written while ${open.size} artifact(s) were not durable`);
    }
    return violations;
  }
}

class LoggedFoldStore extends MemoryFoldStore {
  constructor(private readonly log: OrderLog) {
    super();
  }

  override async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    this.log.events.push({ kind: 'fold', id: record.id });
    await super.putFold(sessionId, record);
  }

  override async saveState(sessionId: string, state: EngineState): Promise<void> {
    this.log.events.push({ kind: 'state' });
    await super.saveState(sessionId, state);
  }
}

/** An evidence store whose writes complete only when the test releases them. */
class HeldEvidenceStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'held-evidence';
  private readonly inner = new MemoryEvidenceStore();
  private readonly waiting: (() => void)[] = [];
  /** Whether a write is being held right now. */
  get holding(): boolean {
    return this.waiting.length > 0;
  }

  constructor(private readonly log: OrderLog) {}

  async put(sessionId: string, content: Uint8Array | string): Promise<EvidenceReference> {
    const reference = await this.inner.put(sessionId, content);
    this.log.events.push({ kind: 'evidence-start', sha256: reference.sha256 });
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.log.events.push({ kind: 'evidence-durable', sha256: reference.sha256 });
    return reference;
  }

  get(sessionId: string, sha256: string): Promise<Uint8Array> {
    return this.inner.get(sessionId, sha256);
  }

  usage(sessionId: string): Promise<number> {
    return this.inner.usage(sessionId);
  }

  release(): void {
    for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Let every write through until `work` settles (writes run one at a time: a release lets the next start). */
  async releaseUntil<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const watched = work.finally(() => (settled = true));
    while (!settled) {
      this.release();
      await letItRun();
    }
    return watched;
  }
}

async function openHeld(settings: Record<string, unknown> = {}) {
  const log = new OrderLog();
  const evidence = new HeldEvidenceStore(log);
  const runtime = await FoldRuntime.open({ sessionId: 'session-evidence', settings: resolveSettings({ providerInputBudget: 60_000, ...settings }), foldStore: new LoggedFoldStore(log), costModel: createCharsCostModel(), evidenceStore: evidence });
  return { log, evidence, runtime };
}

/** Let the runtime run as far as it can without the held writes (each turn drains every microtask). */
async function letItRun(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('evidence writes off the request path', () => {
  it('a request with a spilled result goes out while its artifact is still being written; its state is saved only once the artifact is durable', async () => {
    const { log, evidence, runtime } = await openHeld();
    const entries = [userEntry('u1', 'read the log'), assistantEntry('a1', 'reading', [{ id: 'c1', name: 'read', arguments: { path: 'big.log' } }]), toolResultEntry('r1', 'c1', 'read', 'line of the log\n'.repeat(2_000))];
    let returnedWhileHeld: boolean | undefined;
    const projected = runtime.project(entries).then((result) => {
      returnedWhileHeld = evidence.holding;
      return result;
    });
    await letItRun();
    expect(evidence.holding, 'the artifact write was started').toBe(true);
    expect(returnedWhileHeld, 'the request went out before its artifact was stored').toBe(true);
    expect(log.events.some((event) => event.kind === 'state'), 'no state was saved before the artifact is durable').toBe(false);

    evidence.release();
    const result = await projected;
    expect(result.messages.some((message) => message.kind === 'spilled')).toBe(true);
    await runtime.dispose();
    expect(log.events.map((event) => event.kind)).toEqual(['evidence-start', 'evidence-durable', 'state']);
  });

  it('commits over spilled results write no fold record and no state before every artifact started before them is durable', async () => {
    const { log, evidence, runtime } = await openHeld({ providerInputBudget: 18_000 });
    // Every result is over the 16 KiB spill threshold, so every step starts an artifact write.
    const session = new SyntheticSession({ seed: 5, resultChars: [20_000, 26_000], noteShare: 0 });
    let commitsWhileHeld = 0;
    for (let step = 0; step < 60; step += 1) {
      session.step();
      const projected = runtime.project(session.entries);
      await letItRun();
      const heldBeforeRelease = evidence.holding;
      const result = await evidence.releaseUntil(projected);
      if (heldBeforeRelease && result.ledger.foldsLanded > 0) commitsWhileHeld += 1;
    }
    await evidence.releaseUntil(runtime.dispose());
    expect(log.events.filter((event) => event.kind === 'fold').length, 'folds were committed').toBeGreaterThan(0);
    expect(commitsWhileHeld, 'some commits landed in a request whose artifact was still being written').toBeGreaterThan(0);
    expect(log.referencesBeforeDurable()).toEqual([]);
  });

  it('dispose waits for the artifact and the state deferred behind it', async () => {
    const { log, evidence, runtime } = await openHeld();
    await runtime.project([userEntry('u1', 'go'), assistantEntry('a1', 'ok', [{ id: 'c1', name: 'read', arguments: {} }]), toolResultEntry('r1', 'c1', 'read', 'x'.repeat(40_000))]);
    let disposed = false;
    const disposing = runtime.dispose().then(() => (disposed = true));
    await letItRun();
    expect(disposed, 'dispose is still waiting for the held artifact').toBe(false);
    evidence.release();
    await disposing;
    expect(log.events.at(-1)?.kind).toBe('state');
    expect(log.referencesBeforeDurable()).toEqual([]);
  });
});
