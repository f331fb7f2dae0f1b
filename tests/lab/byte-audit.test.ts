import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { utf8Length } from '../../core/util/hashing.ts';
import { auditBytes, type ByteAuditInput, type SeenSpill, sessionOriginals } from '../../lab/arms/byte-audit.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { openScriptedPi, type Script, settle } from '../../testing/pi/scripted-pi.ts';

/** 30 reads of 6 KB (folded under a 30k band) and, at read 20, one of 40 KB (spilled at the 16 KiB default). */
const script: Script = (request) => {
  if (request.index >= 30) return { kind: 'text', text: 'done' };
  return {
    kind: 'tools',
    calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: request.index === 20 ? 40_000 : 6_000 } }],
  };
};

/** A store that answers like `honest` except for one blob, which `damage` replaces (or drops: undefined). */
function storeWithBlob(
  honest: FoldStore,
  sha256: string,
  damage: (bytes: Uint8Array) => Uint8Array | undefined,
): FoldStore {
  return {
    ...honest,
    listFolds: (sessionId) => honest.listFolds(sessionId),
    getBlob: async (sha) => {
      const bytes = await honest.getBlob(sha);
      if (sha !== sha256) return bytes;
      const damaged = damage(bytes);
      if (damaged === undefined) throw new FoldError('STORE.NOT_FOUND', `no blob ${sha}`);
      return damaged;
    },
  };
}

function flipFirstByte(bytes: Uint8Array): Uint8Array {
  // A copy, never a view: a Buffer's slice would damage the store's own bytes.
  const copy = Uint8Array.from(bytes);
  copy[0] = copy[0]! ^ 1;
  return copy;
}

describe('lab: the byte audit behind "bytes lost" (lab/arms/byte-audit.ts)', () => {
  let base: ByteAuditInput;
  let records: readonly FoldRecord[];
  let foldStore: MemoryFoldStore;
  let evidenceStore: MemoryEvidenceStore;
  let spills: SeenSpill[];

  beforeAll(async () => {
    foldStore = new MemoryFoldStore();
    evidenceStore = new MemoryEvidenceStore();
    const seen = new Map<string, SeenSpill>();
    const pi = await openScriptedPi({
      script,
      fold: {
        foldStore,
        evidenceStore,
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: { providerInputBudget: 30_000, scheduling: 'band', rawFloorTokens: 0 },
        projectionSink: {
          specificationVersion: 'v1',
          accept: (projection) => {
            for (const message of projection.messages)
              if (message.kind === 'spilled')
                for (const pointer of message.spills) seen.set(pointer.id, { pointer, entryId: message.entryId });
          },
        },
      },
    });
    await pi.session.prompt('Read the blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    const sessionId = pi.sessionManager.getSessionId();
    records = await foldStore.listFolds(sessionId);
    spills = [...seen.values()];
    base = {
      sessionId,
      originals: sessionOriginals(pi.sessionManager.getBranch()),
      folds: { store: foldStore, records },
      spills: { store: evidenceStore, seen: spills },
    };
    pi.session.dispose();
  }, 120_000);

  it('a real session with folds and a spill loses nothing: every folded entry and the spilled result verify against the originals', async () => {
    expect(records.length).toBeGreaterThan(1);
    expect(spills.length).toBe(1);
    const bytes = await auditBytes(base);
    expect(bytes.problems).toEqual([]);
    expect(bytes.lostBytes).toBe(0);
    expect(bytes.folds).toBe(records.length);
    expect(bytes.foldedEntries).toBeGreaterThan(10);
    expect(bytes.foldedBytes).toBeGreaterThan(60_000);
    expect(bytes.foldedBytes).toBeLessThan(bytes.transcriptBytes);
    expect(bytes.spilledBytes).toBe(40_000);
    expect(bytes.compactedBytes).toBe(0);
  });

  it("a fold's stored source damaged or missing is counted as lost: exactly that entry's bytes", async () => {
    const part = records.flatMap((record) => record.parts).find((candidate) => candidate.kind === 'entry')!;
    if (part.kind !== 'entry') throw new Error('no entry part');
    const entryBytes = utf8Length(base.originals.entries.get(part.entryId)!.bytes);
    for (const [name, damage] of [
      ['damaged', flipFirstByte],
      ['missing', () => undefined],
    ] as const) {
      const bytes = await auditBytes({
        ...base,
        folds: { store: storeWithBlob(foldStore, part.sha256, damage), records },
      });
      expect(bytes.lostBytes, name).toBe(entryBytes);
      expect(bytes.lostEntries, name).toBe(1);
      expect(bytes.problems[0], name).toMatch(
        name === 'damaged'
          ? /entry .*: the stored source differs from the original/
          : /entry .*: the stored source cannot be read \(STORE.NOT_FOUND\)/,
      );
    }
  });

  it("a record whose source hash is not the originals', or that names a child with no record, loses every entry it covers", async () => {
    const [first, ...others] = records;
    const covered = first!.parts
      .filter((part) => part.kind === 'entry')
      .reduce(
        (sum, part) => sum + utf8Length(base.originals.entries.get(part.kind === 'entry' ? part.entryId : '')!.bytes),
        0,
      );
    const tampered = { ...first!, sourceSha256: '0'.repeat(64) };
    const hashed = await auditBytes({ ...base, folds: { store: foldStore, records: [tampered, ...others] } });
    expect(hashed.lostBytes).toBe(covered);
    expect(hashed.problems).toEqual([
      expect.stringMatching(/its source hash is not the hash of the original entries in order/),
    ]);
    const orphan = {
      ...first!,
      parts: [...first!.parts, { kind: 'fold' as const, foldId: 'fold_000000000000000000000000' }],
    };
    const orphaned = await auditBytes({ ...base, folds: { store: foldStore, records: [orphan, ...others] } });
    expect(orphaned.lostBytes).toBe(covered);
    expect(orphaned.problems[0]).toMatch(/a child fold has no record/);
  });

  it("a spill whose evidence is damaged, or is not the original result, is counted as lost: the spill's bytes", async () => {
    const spill = spills[0]!;
    const damagedEvidence: EvidenceStore = {
      ...evidenceStore,
      name: 'damaged',
      get: async (sessionId, sha) => flipFirstByte(await evidenceStore.get(sessionId, sha)),
      put: (s, c) => evidenceStore.put(s, c),
      usage: (s) => evidenceStore.usage(s),
    };
    const damaged = await auditBytes({ ...base, spills: { store: damagedEvidence, seen: spills } });
    expect(damaged.lostBytes).toBe(40_000);
    expect(damaged.problems[0]).toMatch(/spill sp_.*: the evidence does not match its pointer/);
    // Evidence that verifies against its pointer but belongs to another entry is still not this entry's item.
    const otherEntry = [...base.originals.entries.keys()].find((id) => id !== spill.entryId)!;
    const misplaced = await auditBytes({
      ...base,
      spills: { store: evidenceStore, seen: [{ ...spill, entryId: otherEntry }] },
    });
    expect(misplaced.lostBytes).toBe(40_000);
    expect(misplaced.problems[0]).toMatch(/the evidence is no item of the original entry/);
  });

  it("what Pi's compaction took out of the context is lost unless a verified fold holds it", async () => {
    const ids = [...base.originals.entries.keys()];
    const outOfContext = new Set(ids.slice(0, 5));
    const compactedBytes = ids
      .slice(0, 5)
      .reduce((sum, id) => sum + utf8Length(base.originals.entries.get(id)!.bytes), 0);
    const native = await auditBytes({
      sessionId: base.sessionId,
      originals: { ...base.originals, outOfContext, compactions: 1 },
    });
    expect(native).toMatchObject({
      lostBytes: compactedBytes,
      lostEntries: 5,
      compactedBytes,
      compactedEntries: 5,
      folds: 0,
    });
    const foldedIds = new Set(
      records.flatMap((record) => record.parts.flatMap((part) => (part.kind === 'entry' ? [part.entryId] : []))),
    );
    const withFolds = await auditBytes({ ...base, originals: { ...base.originals, outOfContext, compactions: 1 } });
    const unheld = ids.slice(0, 5).filter((id) => !foldedIds.has(id));
    expect(withFolds.lostBytes).toBe(
      unheld.reduce((sum, id) => sum + utf8Length(base.originals.entries.get(id)!.bytes), 0),
    );
  });
});
