import type { AgentSession } from '@mariozechner/pi-coding-agent';
import type { Projection } from '../../ports/projection-sink.port.ts';
import { type WindowPart, windowPartOf } from '../report/window-parts.ts';
import type { SeenSpill } from './byte-audit.ts';
import { HookTimer } from './hook-timer.ts';

/**
 * What an arm's session tells its provider between requests: the causes and window parts of
 * the projection just handed out (for attributing the next request), compactions, fold
 * events, the spills the windows showed, and the time spent in pi-fold's hooks.
 */
export class ArmTally {
  compactions = 0;
  foldEvents = 0;
  pendingCauses: readonly string[] | undefined;
  pendingParts: readonly WindowPart[] | undefined;
  pendingEntryIds: readonly (string | undefined)[] | undefined;
  pendingReadChars: readonly (number | undefined)[] | undefined;
  readonly spills = new Map<string, SeenSpill>();
  readonly hookTimer = new HookTimer();
  session: AgentSession | undefined;

  /** A fold arm's projection, as its sink receives it. */
  projected(projection: Projection): void {
    this.pendingCauses = projection.ledger.causes;
    this.pendingParts = projection.messages.map(windowPartOf);
    this.pendingEntryIds = projection.messages.map((message) =>
      message.kind === 'entry' || message.kind === 'spilled' ? message.entryId : undefined,
    );
    this.pendingReadChars = projection.messages.map((message) =>
      message.kind === 'entry' || message.kind === 'spilled' ? message.bytes.length : undefined,
    );
    this.foldEvents += projection.ledger.foldsLanded;
    noteSpills(projection, this.spills);
  }

  takeCauses(): readonly string[] | undefined {
    const causes = this.pendingCauses;
    this.pendingCauses = undefined;
    return causes;
  }

  takeParts(): readonly WindowPart[] | undefined {
    const parts = this.pendingParts;
    this.pendingParts = undefined;
    return parts;
  }

  /** Each entry's window form in chars: what a runtime whose host gives no `contentChars` measures its floor in. */
  takeReadChars(): readonly (number | undefined)[] | undefined {
    const chars = this.pendingReadChars;
    this.pendingReadChars = undefined;
    return chars;
  }

  takeEntryIds(): readonly (string | undefined)[] | undefined {
    const ids = this.pendingEntryIds;
    this.pendingEntryIds = undefined;
    return ids;
  }
}

/** Every spill a window showed, by id: the byte audit checks each one's evidence after the run. */
function noteSpills(projection: Projection, spills: Map<string, SeenSpill>): void {
  for (const message of projection.messages) {
    if (message.kind !== 'spilled') continue;
    for (const pointer of message.spills)
      if (!spills.has(pointer.id)) spills.set(pointer.id, { pointer, entryId: message.entryId });
  }
}
