import type { FoldRecord } from '../ports/fold-records.ts';
import type { DamagedFoldRecord, FoldStore } from '../ports/fold-store.port.ts';
import { check, checkEqual, randomId } from './conformance-support.ts';
import { sampleEngineState, sampleFoldRecord } from './store-fixtures.ts';

/** What a damage hook cuts short or overwrites. */
export type StoredDamageTarget =
  | { readonly kind: 'state'; readonly sessionId: string }
  | { readonly kind: 'fold'; readonly sessionId: string; readonly foldId: string }
  | { readonly kind: 'blob'; readonly sha256: string };

/** Hooks that damage a store from outside, the way a crash, a full disk or a stray tool does. */
export interface StoreDamageHooks {
  /** Cut what is stored for `target` short (half its stored text), in place. */
  readonly tearStored?: (store: FoldStore, target: StoredDamageTarget) => Promise<void>;
  /** Store the record of `fromFoldId` (its stored value, as is) under `overFoldId` of the same session. */
  readonly copyRecordOver?: (
    store: FoldStore,
    sessionId: string,
    fromFoldId: string,
    overFoldId: string,
  ) => Promise<void>;
}

type DefineCase = (name: string, body: (store: FoldStore) => Promise<void>) => void;

/** Codes that mean "this value is damaged" (a loss the runtime and `repair` act on), never "the store failed". */
const DAMAGE_CODES = ['STORE.HASH_MISMATCH', 'STATE.CORRUPT'];

/**
 * Damage stays with what was damaged: a torn record, state or blob is refused by name with a
 * damage code (so the runtime opens without it instead of treating the store as down), the
 * other sessions of the store read as before, a walk of every record reports it and goes on,
 * and a record copied over another id is refused under that id.
 */
export function storeDamageCases(define: DefineCase, hooks: StoreDamageHooks): void {
  const { tearStored, copyRecordOver } = hooks;
  if (tearStored !== undefined) {
    define(
      'a torn fold record is refused as damage; the rest of its session and other sessions read',
      async (store) => {
        const { damaged, kept, other } = await twoSessions(store);
        await tearStored(store, { kind: 'fold', sessionId: damaged.sessionId, foldId: damaged.record.id });
        await expectDamage(() => store.getFold(damaged.sessionId, damaged.record.id), 'getFold of a torn record');
        checkEqual((await store.getFold(damaged.sessionId, kept.id))?.id, kept.id, 'another record of the session');
        checkEqual(
          (await store.listFolds(other.sessionId)).map((record) => record.id).join(','),
          other.record.id,
          'listFolds of another session',
        );
        await expectListedSessions(store, [damaged.sessionId, other.sessionId]);
        await expectWalkReports(store, damaged.sessionId, damaged.record.id, [kept.id, other.record.id]);
      },
    );

    define('a torn engine state is refused as damage; other sessions read', async (store) => {
      const { damaged, other } = await twoSessions(store);
      await tearStored(store, { kind: 'state', sessionId: damaged.sessionId });
      await expectDamage(() => store.loadState(damaged.sessionId), 'loadState of a torn state');
      checkEqual((await store.loadState(other.sessionId))?.sessionId, other.sessionId, 'state of another session');
      await expectListedSessions(store, [damaged.sessionId, other.sessionId]);
    });

    define('a torn blob is refused as damage, and putting its true bytes writes it whole again', async (store) => {
      const text = `bytes ${randomId('torn')}`;
      const sha256 = await store.putBlob(text);
      await tearStored(store, { kind: 'blob', sha256 });
      await expectDamage(() => store.getBlob(sha256), 'getBlob of a torn blob');
      await store.putBlob(text);
      checkEqual(Buffer.from(await store.getBlob(sha256)).toString('utf8'), text, 'the blob put again');
    });
  }
  if (copyRecordOver !== undefined) {
    define('a fold record copied over another id is refused under that id, by getFold and listFolds', async (store) => {
      const { damaged, kept } = await twoSessions(store);
      await copyRecordOver(store, damaged.sessionId, kept.id, damaged.record.id);
      await expectDamage(() => store.getFold(damaged.sessionId, damaged.record.id), 'getFold of a copied record');
      await expectDamage(() => store.listFolds(damaged.sessionId), 'listFolds of a session holding a copied record');
      checkEqual((await store.getFold(damaged.sessionId, kept.id))?.id, kept.id, 'the original record');
      await expectWalkReports(store, damaged.sessionId, damaged.record.id, [kept.id]);
    });
  }
}

/** Two sessions with state; the first has two records, the second one. */
async function twoSessions(store: FoldStore) {
  const first = randomId('damaged');
  const second = randomId('other');
  const record = sampleFoldRecord();
  const kept = sampleFoldRecord();
  const otherRecord = sampleFoldRecord();
  await store.putFold(first, record);
  await store.putFold(first, kept);
  await store.putFold(second, otherRecord);
  await store.saveState(first, { ...sampleEngineState(first), foldIds: [record.id, kept.id] });
  await store.saveState(second, { ...sampleEngineState(second), foldIds: [otherRecord.id] });
  return {
    damaged: { sessionId: first, record },
    kept,
    other: { sessionId: second, record: otherRecord },
  };
}

async function expectDamage(action: () => Promise<unknown>, what: string): Promise<void> {
  let outcome: unknown;
  try {
    outcome = await action();
  } catch (error) {
    const code = (error as { code?: unknown })?.code;
    check(
      typeof code === 'string' && DAMAGE_CODES.includes(code),
      `${what}: expected a FoldError ${DAMAGE_CODES.join(' or ')} (damage, not a store failure), got ${String(code)}: ${(error as Error)?.message}`,
    );
    return;
  }
  throw new Error(`${what}: expected a refusal naming the damage, but it returned ${typeof outcome}`);
}

async function expectListedSessions(store: FoldStore, sessionIds: readonly string[]): Promise<void> {
  if (store.listSessions === undefined) return;
  const listed = await store.listSessions();
  for (const sessionId of sessionIds) check(listed.includes(sessionId), `listSessions does not name ${sessionId}`);
}

/** A walk of every record (when offered) reports the damaged one by session and id, and still yields the rest. */
async function expectWalkReports(
  store: FoldStore,
  sessionId: string,
  foldId: string,
  stillYielded: readonly string[],
): Promise<void> {
  if (store.listAllFolds === undefined) return;
  const reported: DamagedFoldRecord[] = [];
  const yielded: FoldRecord[] = [];
  for await (const item of store.listAllFolds({ onDamaged: (damaged) => reported.push(damaged) }))
    yielded.push(item.record);
  check(
    reported.some((damaged) => damaged.sessionId === sessionId && damaged.foldId === foldId),
    `listAllFolds did not report the damaged record ${foldId} of ${sessionId} to onDamaged`,
  );
  for (const id of stillYielded)
    check(
      yielded.some((record) => record.id === id),
      `listAllFolds stopped at the damage: record ${id} was not yielded`,
    );
}
