import type { FoldRecord } from '../../ports/fold-records.ts';

/**
 * From records found under a session without a state to say which stood, pick a set that
 * forms a forest (docs/behaviour.md I3): records left by a lost state and the ones landed
 * again since can cover the same entries in other shapes. Larger folds are taken first with
 * every fold they nest; a record that would duplicate or partly overlap one already taken,
 * or sit inside one it is not nested in, is left out with the reason. Every entry a left-out
 * record held is still held by a kept one or is raw in the conversation, so nothing is lost.
 */
export function consistentForest(records: readonly FoldRecord[]): {
  readonly kept: FoldRecord[];
  readonly left: Map<string, string>;
} {
  const byId = new Map(records.map((record) => [record.id, record]));
  const covered = new Map<string, ReadonlySet<string>>();
  const entriesOf = (record: FoldRecord): ReadonlySet<string> => {
    const known = covered.get(record.id);
    if (known !== undefined) return known;
    const entries = new Set<string>();
    for (const part of record.parts) {
      if (part.kind === 'entry') entries.add(part.entryId);
      else for (const entry of entriesOf(byId.get(part.foldId)!)) entries.add(entry);
    }
    covered.set(record.id, entries);
    return entries;
  };
  const descendants = (record: FoldRecord, into: Set<string>): Set<string> => {
    for (const part of record.parts)
      if (part.kind === 'fold' && !into.has(part.foldId)) descendants(byId.get(part.foldId)!, into.add(part.foldId));
    return into;
  };
  const order = [...records].sort(
    (left, right) => right.entryCount - left.entryCount || right.epoch - left.epoch || (left.id < right.id ? -1 : 1),
  );
  const kept: FoldRecord[] = [];
  const nestedInKept = new Set<string>();
  const left = new Map<string, string>();
  for (const record of order) {
    const entries = entriesOf(record);
    const clash = nestedInKept.has(record.id)
      ? undefined
      : kept.find((standing) => [...entries].some((entry) => entriesOf(standing).has(entry)));
    if (clash !== undefined) {
      left.set(record.id, `it covers entries of fold ${clash.id}, which is kept instead`);
      continue;
    }
    kept.push(record);
    descendants(record, nestedInKept);
  }
  return { kept, left };
}
