import fc from 'fast-check';
import { EngineMemory } from '../../../core/state/engine-memory.ts';
import { readFoldSource } from '../../../core/store/fold-source.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { FoldPart, FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';

/**
 * Random store contents for gc tests: sessions of fold trees (folds nested inside
 * consolidations, several levels deep) over entries drawn from a pool shared across
 * sessions, plus garbage blobs nothing references.
 */

/** A fold: its raw entries (indexes into the pool) and child folds, in order. */
export interface FoldTree {
  readonly parts: readonly ({ readonly entry: number } | { readonly child: FoldTree })[];
}

export interface StorePlan {
  readonly pool: readonly string[];
  readonly sessions: readonly { readonly trees: readonly FoldTree[]; readonly withState: boolean }[];
  readonly garbage: readonly string[];
}

const poolSize = 12;

const foldTree: fc.Arbitrary<FoldTree> = fc.letrec<{ tree: FoldTree }>((tie) => ({
  tree: fc.record({
    parts: fc.array(
      fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.record({ entry: fc.nat(poolSize - 1) }),
        fc.record({ child: tie('tree') }),
      ),
      { minLength: 1, maxLength: 4 },
    ),
  }),
})).tree;

/** Random plans: 1–4 sessions of up to 4 trees each, a pool of entry texts, and garbage. */
export const storePlan: fc.Arbitrary<StorePlan> = fc.record({
  pool: fc.array(fc.string({ minLength: 1, maxLength: 300, unit: 'grapheme' }), {
    minLength: poolSize,
    maxLength: poolSize,
  }),
  sessions: fc.array(
    fc.record({ trees: fc.array(foldTree, { minLength: 0, maxLength: 4 }), withState: fc.boolean() }),
    { minLength: 1, maxLength: 4 },
  ),
  garbage: fc.array(fc.string({ minLength: 1, maxLength: 400, unit: 'grapheme' }), { minLength: 0, maxLength: 8 }),
});

/** What a built store should read back: every fold's exact entries, by session. */
export interface BuiltStore {
  readonly expected: Map<string, Map<string, string[]>>;
  readonly referenced: Set<string>;
  /** Garbage blobs that no fold happens to reference too. */
  readonly garbageOnly: Set<string>;
  readonly garbageBytes: number;
}

/** Write a plan into a store through its port, as the engine would (blobs, then records, then state). */
export async function buildStore(store: FoldStore, plan: StorePlan, sessionPrefix: string): Promise<BuiltStore> {
  const expected = new Map<string, Map<string, string[]>>();
  const referenced = new Set<string>();
  let sequence = 0;
  for (const [sessionIndex, session] of plan.sessions.entries()) {
    const sessionId = `${sessionPrefix}-${sessionIndex}`;
    const folds = new Map<string, string[]>();
    const write = async (tree: FoldTree): Promise<FoldRecord> => {
      const parts: FoldPart[] = [];
      const texts: string[] = [];
      const entryIds: string[] = [];
      for (const part of tree.parts) {
        if ('entry' in part) {
          const text = plan.pool[part.entry]!;
          const sha256 = await store.putBlob(text);
          referenced.add(sha256);
          const entryId = `e${(sequence += 1)}`;
          parts.push({ kind: 'entry', entryId, sha256, chars: text.length });
          texts.push(text);
          entryIds.push(entryId);
        } else {
          const child = await write(part.child);
          parts.push({ kind: 'fold', foldId: child.id });
          texts.push(...folds.get(child.id)!);
          entryIds.push(child.firstEntryId, child.lastEntryId);
        }
      }
      const id = `fold_${(sequence += 1).toString(16).padStart(24, '0')}`;
      const record: FoldRecord = {
        schemaVersion: 1,
        id,
        kind: parts.some((part) => part.kind === 'fold') ? 'consolidation' : 'chapter',
        origin: 'runtime',
        firstEntryId: entryIds[0]!,
        lastEntryId: entryIds.at(-1)!,
        parts,
        sourceSha256: sha256Hex(texts.map((text) => `${text}\n`).join('')),
        sourceChars: texts.reduce((sum, text) => sum + text.length, 0),
        entryCount: texts.length,
        brief: `fold ${id}`,
        provenance: 'deterministic',
        epoch: 1,
      };
      await store.putFold(sessionId, record);
      folds.set(id, texts);
      return record;
    };
    const roots: string[] = [];
    for (const tree of session.trees) roots.push((await write(tree)).id);
    if (session.withState) {
      const memory = new EngineMemory(sessionId);
      for (const foldId of folds.keys()) memory.listFold(foldId);
      await store.saveState(sessionId, memory.snapshot([], []));
    }
    expected.set(sessionId, folds);
  }
  const garbageOnly = new Set<string>();
  let garbageBytes = 0;
  for (const text of plan.garbage) {
    const sha256 = await store.putBlob(text);
    if (!referenced.has(sha256) && !garbageOnly.has(sha256)) {
      garbageOnly.add(sha256);
      garbageBytes += Buffer.byteLength(text, 'utf8');
    }
  }
  return { expected, referenced, garbageOnly, garbageBytes };
}

/**
 * Read every fold of every session back through the engine's own verified read
 * (`readFoldSource`: each entry re-hashed, the whole checked against the record) and return
 * the first mismatch or failure, or `undefined` when every byte came back.
 */
export async function firstUnreadableFold(store: FoldStore, built: BuiltStore): Promise<string | undefined> {
  for (const [sessionId, folds] of built.expected) {
    const records = new Map((await store.listFolds(sessionId)).map((record) => [record.id, record]));
    for (const [foldId, texts] of folds) {
      try {
        const entries = await readFoldSource(store, (id) => records.get(id), foldId);
        const actual = entries.map((entry) => entry.bytes);
        if (actual.length !== texts.length || actual.some((bytes, index) => bytes !== texts[index]))
          return `${sessionId}/${foldId}: bytes differ`;
      } catch (error) {
        return `${sessionId}/${foldId}: ${(error as Error).message}`;
      }
    }
  }
  return undefined;
}
