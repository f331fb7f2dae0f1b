import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

/**
 * Units are the smallest closed pieces of a transcript: a user message, an assistant note
 * (no tool calls), or a tool batch (an assistant message with calls plus the results that
 * follow it). Results that answer no open call, and batches interrupted before all their
 * results landed, are kept as protected units: they never fold, so a projection can never
 * strand a call or a result.
 */
export type UnitKind = 'user' | 'note' | 'tool-batch' | 'orphan-result';

export interface Unit {
  readonly index: number;
  readonly kind: UnitKind;
  /** Entry indices, inclusive. */
  readonly first: number;
  last: number;
  /** True once nothing more can join the unit. */
  complete: boolean;
  /** True when the unit must never fold (host-protected entry, orphan, interrupted batch). */
  protected: boolean;
  /** Sum of entry chars. */
  chars: number;
  /** Sum of result-entry chars (tool batches only). */
  resultChars: number;
  /** Tool names called by the batch. */
  readonly toolNames: readonly string[];
  /** Call ids still waiting for a result. */
  readonly pendingCallIds: Set<string>;
}

/**
 * Put the entry at `position` (of `chars` window chars) into its unit: a result joins the open
 * batch whose call it answers, anything else starts a unit of its own. Returns the unit's index.
 */
export function assignUnit(units: Unit[], entry: TranscriptEntry, position: number, chars: number): number {
  const previous = units[units.length - 1];
  if (entry.role === 'toolResult') {
    const answersOpenBatch =
      previous !== undefined &&
      previous.kind === 'tool-batch' &&
      !previous.complete &&
      previous.last === position - 1 &&
      entry.toolCallId !== undefined &&
      previous.pendingCallIds.has(entry.toolCallId);
    if (answersOpenBatch) {
      previous.pendingCallIds.delete(entry.toolCallId!);
      previous.last = position;
      previous.chars += chars;
      previous.resultChars += chars;
      if (entry.protected === true) previous.protected = true;
      if (previous.pendingCallIds.size === 0) previous.complete = true;
      return previous.index;
    }
    closeInterruptedBatch(previous);
    return pushUnit(units, 'orphan-result', position, chars, true, [], []);
  }
  closeInterruptedBatch(previous);
  const calls = entry.role === 'assistant' ? (entry.toolCalls ?? []) : [];
  if (calls.length > 0) {
    const names = calls.map((call) => call.name);
    return pushUnit(
      units,
      'tool-batch',
      position,
      chars,
      entry.protected === true,
      names,
      calls.map((call) => call.id),
    );
  }
  return pushUnit(units, entry.role === 'user' ? 'user' : 'note', position, chars, entry.protected === true, [], []);
}

// A batch that something else interrupted can never be folded safely: a fold edge would
// have to separate its calls from results that may still arrive later.
function closeInterruptedBatch(unit: Unit | undefined): void {
  if (unit !== undefined && unit.kind === 'tool-batch' && !unit.complete) {
    unit.complete = true;
    unit.protected = true;
  }
}

function pushUnit(
  units: Unit[],
  kind: UnitKind,
  position: number,
  chars: number,
  isProtected: boolean,
  toolNames: string[],
  callIds: string[],
): number {
  const index = units.length;
  units.push({
    index,
    kind,
    first: position,
    last: position,
    complete: kind !== 'tool-batch',
    protected: isProtected,
    chars,
    resultChars: 0,
    toolNames,
    pendingCallIds: new Set(callIds),
  });
  return index;
}
