import { describe, expect, it } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { EvidenceReference, EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { EngineState, FoldRecord } from '../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { assistantEntry, SyntheticSession, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

/**
 * Evidence writes are off the request path, yet durable before anything refers to them
 * (docs/behaviour.md B6.2): a request goes out while its artifact is still being written,
 * and no fold record over a spilled entry (nor a state listing that fold) reaches the store
 * before the entry's artifact is stored. The stores here log every write in order; the
 * evidence store holds each artifact until the test lets it through, as a slow disk would.
 */

type Event =
  | { readonly kind: 'evidence-start' | 'evidence-durable'; readonly sha256: string }
  | { readonly kind: 'fold'; readonly id: string; readonly artifacts: readonly string[] }
  | { readonly kind: 'state'; readonly foldIds: readonly string[] };

class OrderLog {
  readonly events: Event[] = [];
  /** The session's entries, to tell which artifacts a fold record covers. */
  entries: readonly TranscriptEntry[] = [];

  /** SHA-256 of the artifact of every spilled tool result in the record's span (over the default 16 KiB threshold). */
  artifactsOf(record: FoldRecord): string[] {
    const first = this.entries.findIndex((entry) => entry.id === record.firstEntryId);
    const last = this.entries.findIndex((entry) => entry.id === record.lastEntryId);
    return this.entries
      .slice(first, last + 1)
      .filter((entry) => entry.role === 'toolResult' && Buffer.byteLength(entry.text) > 16_384)
      .map((entry) => sha256Hex(Buffer.from(entry.text, 'utf8')));
  }

  /** Records (and states listing them) written while an artifact they cover was not yet stored. */
  referencesBeforeDurable(): string[] {
    const durable = new Set<string>();
    const artifactsOfFold = new Map<string, readonly string[]>();
    const violations: string[] = [];
    const missing = (artifacts: readonly string[]) => artifacts.filter((sha256) => !durable.has(sha256)).length;
    for (const event of this.events) {
      if (event.kind === 'evidence-durable') durable.add(event.sha256);
      else if (event.kind === 'fold') {
        artifactsOfFold.set(event.id, event.artifacts);
        if (missing(event.artifacts) > 0)
          violations.push(
            `fold ${event.id} written while ${missing(event.artifacts)} artifact(s) it covers were not durable`,
          );
      } else if (event.kind === 'state') {
        for (const foldId of event.foldIds) {
          const artifacts = artifactsOfFold.get(foldId) ?? [];
          if (missing(artifacts) > 0)
            violations.push(
              `a state listing ${foldId} written while ${missing(artifacts)} of its artifact(s) were not durable`,
            );
        }
      }
    }
    return violations;
  }
}

class LoggedFoldStore extends MemoryFoldStore {
  constructor(private readonly log: OrderLog) {
    super();
  }

  override async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    this.log.events.push({ kind: 'fold', id: record.id, artifacts: this.log.artifactsOf(record) });
    await super.putFold(sessionId, record);
  }

  override async saveState(sessionId: string, state: EngineState): Promise<void> {
    this.log.events.push({ kind: 'state', foldIds: state.foldIds });
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
  const runtime = await FoldRuntime.open({
    sessionId: 'session-evidence',
    settings: resolveSettings({ providerInputBudget: 60_000, ...settings }),
    foldStore: new LoggedFoldStore(log),
    costModel: createCharsCostModel(),
    evidenceStore: evidence,
  });
  return { log, evidence, runtime };
}

/** Let the runtime run as far as it can without the held writes (each turn drains every microtask). */
async function letItRun(turns = 20): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await new Promise((resolve) => setImmediate(resolve));
}

describe('evidence writes off the request path', () => {
  it('a request with a spilled result goes out while its artifact is still being written', async () => {
    const { log, evidence, runtime } = await openHeld();
    const entries = [
      userEntry('u1', 'read the log'),
      assistantEntry('a1', 'reading', [{ id: 'c1', name: 'read', arguments: { path: 'big.log' } }]),
      toolResultEntry('r1', 'c1', 'read', 'line of the log\n'.repeat(2_000)),
    ];
    let storedWhenReturned: boolean | undefined;
    let startedWhenReturned: boolean | undefined;
    const projected = runtime.project(entries).then((result) => {
      storedWhenReturned = log.events.some((event) => event.kind === 'evidence-durable');
      startedWhenReturned = log.events.some((event) => event.kind === 'evidence-start');
      return result;
    });
    await letItRun();
    expect(evidence.holding, 'the artifact write was started').toBe(true);
    expect(storedWhenReturned, 'the request went out before its artifact was stored').toBe(false);
    // A store may do part of a write synchronously (the fs store does): none of it runs inside the request.
    expect(startedWhenReturned, 'the artifact write starts after the request went out').toBe(false);

    evidence.release();
    const result = await projected;
    expect(result.messages.some((message) => message.kind === 'spilled')).toBe(true);
    await runtime.dispose();
    expect(log.events.filter((event) => event.kind.startsWith('evidence')).map((event) => event.kind)).toEqual([
      'evidence-start',
      'evidence-durable',
    ]);
  });

  it('commits over spilled results write no fold record (and no state listing one) before the artifacts it covers are durable', async () => {
    const { log, evidence, runtime } = await openHeld({ providerInputBudget: 18_000 });
    // Every result is over the 16 KiB spill threshold, so every step starts an artifact write.
    const session = new SyntheticSession({ seed: 5, resultChars: [20_000, 26_000], noteShare: 0 });
    log.entries = session.entries;
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
    expect(commitsWhileHeld, 'some commits landed in a request whose artifact was still being written').toBeGreaterThan(
      0,
    );
    expect(log.referencesBeforeDurable()).toEqual([]);
  });

  it('a first request over a long branch (a restart) starts every artifact, and its commit writes a record only once the artifacts it covers are durable', async () => {
    const { log, evidence, runtime } = await openHeld({ providerInputBudget: 18_000 });
    const session = new SyntheticSession({ seed: 9, resultChars: [20_000, 26_000], noteShare: 0 });
    for (let step = 0; step < 40; step += 1) session.step();
    log.entries = session.entries;
    const projected = runtime.project(session.entries);
    await letItRun();
    expect(
      log.events.some((event) => event.kind === 'fold'),
      'no record was written while the first artifact is held',
    ).toBe(false);
    const result = await evidence.releaseUntil(projected);
    expect(result.ledger.foldsLanded, 'the first request committed').toBeGreaterThan(0);
    await evidence.releaseUntil(runtime.dispose());
    expect(log.referencesBeforeDurable()).toEqual([]);
    // Writes run in transcript order and the commit folds the oldest entries: it went out before the newest artifacts were stored.
    const lastFold = log.events.map((event) => event.kind).lastIndexOf('fold');
    expect(
      log.events.slice(lastFold).some((event) => event.kind === 'evidence-durable'),
      'artifacts of entries the commit does not cover were still being written',
    ).toBe(true);
  });

  it('dispose waits for the artifacts still being written', async () => {
    const { log, evidence, runtime } = await openHeld();
    await runtime.project([
      userEntry('u1', 'go'),
      assistantEntry('a1', 'ok', [{ id: 'c1', name: 'read', arguments: {} }]),
      toolResultEntry('r1', 'c1', 'read', 'x'.repeat(40_000)),
    ]);
    let disposed = false;
    const disposing = runtime.dispose().then(() => (disposed = true));
    await letItRun();
    expect(disposed, 'dispose is still waiting for the held artifact').toBe(false);
    evidence.release();
    await disposing;
    expect(log.events.at(-1)?.kind).toBe('evidence-durable');
  });
});
