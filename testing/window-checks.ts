import type { FoldRecord } from '../ports/fold-records.ts';
import type { ProjectedMessage, Projection } from '../ports/projection-sink.port.ts';

/**
 * Checks over recorded projections, written as pure functions that return violations so
 * each gate can be shown to fail on a broken sequence as well as pass on a real run.
 */

/** docs/behaviour.md I1: request n+1 starts with request n's exact bytes unless the ledger recorded a cause. */
export function appendOnlyViolations(projections: readonly Projection[]): string[] {
  const violations: string[] = [];
  for (let n = 1; n < projections.length; n += 1) {
    const previous = serialize(projections[n - 1]!.messages);
    const next = serialize(projections[n]!.messages);
    const extends_ = next.startsWith(previous);
    const row = projections[n]!.ledger;
    if (!extends_ && row.causes.length === 0)
      violations.push(`request ${row.request} rewrote the window without a recorded cause`);
    if (row.unattributed) violations.push(`request ${row.request} is flagged unattributed`);
    if (!extends_ && row.divergenceIndex >= projections[n - 1]!.messages.length)
      violations.push(`request ${row.request} diverged but its ledger claims a pure append`);
  }
  return violations;
}

/** The wire form a provider would receive: every message's bytes, newline-separated. */
export function serialize(messages: readonly ProjectedMessage[]): string {
  return messages.map((message) => `${message.bytes}\n`).join('');
}

/** A projection message's role and tool-call facts, decoded from its neutral bytes. */
interface WireFacts {
  readonly role: string;
  readonly calls: readonly string[];
  readonly answers: string | undefined;
}

function wireFacts(message: ProjectedMessage): WireFacts {
  if (message.kind === 'synthetic') return { role: 'user', calls: [], answers: undefined };
  if (message.kind === 'stub') return { role: 'toolResult', calls: [], answers: message.toolCallId };
  const parsed = JSON.parse(message.bytes) as { role?: string; toolCallId?: string; content?: unknown };
  const calls = Array.isArray(parsed.content)
    ? (parsed.content as { type?: string; id?: string }[])
        .filter((block) => block?.type === 'toolCall')
        .map((block) => String(block.id))
    : [];
  return {
    role: String(parsed.role),
    calls,
    answers: parsed.role === 'toolResult' ? String(parsed.toolCallId) : undefined,
  };
}

/**
 * docs/behaviour.md I3 pairing, as a provider checks it: every tool call is answered before the next
 * non-result message, and every result answers a call of the message just before its run.
 */
export function pairingViolations(messages: readonly ProjectedMessage[]): string[] {
  const violations: string[] = [];
  let open = new Set<string>();
  for (const [position, message] of messages.entries()) {
    const facts = wireFacts(message);
    if (facts.role === 'toolResult') {
      if (facts.answers === undefined || !open.has(facts.answers))
        violations.push(`message ${position} answers ${facts.answers} with no open call`);
      else open.delete(facts.answers);
      continue;
    }
    if (open.size > 0)
      violations.push(`message ${position} arrives while calls ${[...open].join(', ')} have no result`);
    open = new Set(facts.calls);
  }
  return violations;
}

/** docs/behaviour.md I3 structure: folds nest or are disjoint, and each child has exactly one parent. */
export function forestViolations(
  records: readonly FoldRecord[],
  positionOf: (entryId: string) => number | undefined,
): string[] {
  const violations: string[] = [];
  const spans = records.map((record) => ({
    record,
    first: positionOf(record.firstEntryId) ?? -1,
    last: positionOf(record.lastEntryId) ?? -1,
  }));
  for (let a = 0; a < spans.length; a += 1) {
    for (let b = a + 1; b < spans.length; b += 1) {
      const x = spans[a]!;
      const y = spans[b]!;
      const disjoint = x.last < y.first || y.last < x.first;
      const nested = (x.first <= y.first && y.last <= x.last) || (y.first <= x.first && x.last <= y.last);
      if (!disjoint && !nested) violations.push(`folds ${x.record.id} and ${y.record.id} partially overlap`);
      if (x.first === y.first && x.last === y.last)
        violations.push(`folds ${x.record.id} and ${y.record.id} cover the same span`);
    }
  }
  const parents = new Map<string, string>();
  for (const record of records) {
    for (const part of record.parts) {
      if (part.kind !== 'fold') continue;
      const existing = parents.get(part.foldId);
      if (existing !== undefined) violations.push(`fold ${part.foldId} has two parents, ${existing} and ${record.id}`);
      parents.set(part.foldId, record.id);
    }
  }
  return violations;
}
