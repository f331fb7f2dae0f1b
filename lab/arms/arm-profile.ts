import { FoldError } from '../../core/fold-error.ts';
import type { ArmName, LabRunSettings } from '../report/lab-records.ts';

/** How one arm sets Pi up: the model's window, the provider cap, compaction and extensions. */
export interface ArmProfile {
  /** Pi's compaction setting (`compaction.enabled`). */
  readonly compaction: boolean;
  /** The model descriptor's `contextWindow` Pi and the runtimes see. */
  readonly contextWindow: number;
  /** Prompts above this are refused by the simulated provider. */
  readonly capTokens: number;
  /** Load pi-fold with this scheduling. */
  readonly fold?: { readonly scheduling: 'epoch' | 'immediate'; readonly providerInputBudget: number };
  /** Load this Pi extension file. */
  readonly extensionPath?: string;
}

/** The arms `pi-fold replay` runs when `--arms` is not given. */
export const DEFAULT_REPLAY_ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold'];

/** The oracle's window: large enough that nothing a workload sends comes near it. */
const ORACLE_WINDOW = 100_000_000;

/**
 * The stated setup of every arm:
 * - `unmanaged`: compaction off; a refused prompt ends the arm.
 * - `native`: Pi's own compaction on; the model descriptor is the 272k window, the provider cap refuses above it.
 * - `fold` / `fold-immediate`: pi-fold with `providerInputBudget` = the descriptor; Pi's compaction left at its default (on).
 * - `oracle`: no management and no cap: everything in view (recall reference).
 * - `extension:<path>`: that extension file loaded, compaction at Pi's default (on).
 */
export function armProfile(arm: ArmName, settings: LabRunSettings): ArmProfile {
  const descriptor = settings.descriptorTokens;
  const cap = settings.providerCapTokens;
  switch (arm) {
    case 'unmanaged':
      return { compaction: false, contextWindow: descriptor, capTokens: cap };
    case 'native':
      return { compaction: true, contextWindow: descriptor, capTokens: cap };
    case 'fold':
      return { compaction: true, contextWindow: descriptor, capTokens: cap, fold: { scheduling: 'epoch', providerInputBudget: descriptor } };
    case 'fold-immediate':
      return { compaction: true, contextWindow: descriptor, capTokens: cap, fold: { scheduling: 'immediate', providerInputBudget: descriptor } };
    case 'oracle':
      return { compaction: false, contextWindow: ORACLE_WINDOW, capTokens: Number.POSITIVE_INFINITY };
    default: {
      const path = arm.slice('extension:'.length);
      if (!arm.startsWith('extension:') || path.length === 0) {
        throw new FoldError('SETTINGS.INVALID', `unknown lab arm "${arm}" (known: unmanaged, native, fold, fold-immediate, oracle, extension:<path>)`);
      }
      return { compaction: true, contextWindow: descriptor, capTokens: cap, extensionPath: path };
    }
  }
}

/** Parse an arm name from the command line, refusing unknown names by name. */
export function parseArmName(text: string): ArmName {
  const known = ['unmanaged', 'native', 'fold', 'fold-immediate', 'oracle'];
  if (known.includes(text)) return text as ArmName;
  if (text.startsWith('extension:') && text.length > 'extension:'.length) return text as ArmName;
  throw new FoldError('SETTINGS.INVALID', `unknown lab arm "${text}" (known: ${known.join(', ')}, extension:<path>)`);
}
