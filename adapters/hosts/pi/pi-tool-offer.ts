import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../../core/fold-error.ts';
import { foldToolNeeded, TOOL_OFFERS, type ToolOffer } from '../../../core/settings/tool-offer.ts';
import { PI_TOOL_NAME, type PiSessionFolding } from './session-registry.ts';

/** Refuse a `toolOffer` option that is not one of TOOL_OFFERS, naming the ones there are. */
export function checkedToolOffer(value: unknown): ToolOffer {
  if (value === undefined) return 'always';
  if ((TOOL_OFFERS as readonly unknown[]).includes(value)) return value as ToolOffer;
  throw new FoldError(
    'SETTINGS.INVALID',
    `registerPiFold: toolOffer must be one of ${TOOL_OFFERS.map((name) => `"${name}"`).join(', ')}, got ${JSON.stringify(value)}`,
    { details: { option: 'toolOffer' } },
  );
}

/**
 * Offers `pi_fold_context` to the agent under `toolOffer: 'when-needed'` (core/settings/tool-offer.ts).
 * Pi takes a tool list once per agent turn (its loop snapshots the tools when a prompt starts,
 * and `setActiveTools` takes effect at the next turn), so the decision is made before each
 * turn: the tool appears at the turn after the window first shows something to act on, or at
 * the first turn of a session restored with folds. Once offered, it stays.
 */
export class PiToolOffer {
  private readonly offered = new Set<string>();

  constructor(
    private readonly pi: ExtensionAPI,
    readonly policy: ToolOffer,
  ) {}

  /** Called before each agent turn, with the session's folding. */
  beforeTurn(folding: PiSessionFolding): void {
    if (this.policy === 'always' || this.offered.has(folding.sessionId)) return;
    const active = this.pi.getActiveTools();
    const needed = foldToolNeeded(folding.runtime.view.lattice.size, folding.lastProjection?.messages);
    if (needed) this.offered.add(folding.sessionId);
    const shown = active.includes(PI_TOOL_NAME);
    if (needed && !shown) this.pi.setActiveTools([...active, PI_TOOL_NAME]);
    if (!needed && shown) this.pi.setActiveTools(active.filter((name) => name !== PI_TOOL_NAME));
  }
}
