import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_THRESHOLDS, resolveSettings, type Thresholds } from '../../core/settings.ts';
import type { ArmName, LabRunSettings } from '../report/lab-records.ts';

/** pi-fold's setup in a fold arm: the settings it must run with (checked against the runtime after the run). */
export interface FoldArmSetup {
  readonly providerInputBudget: number;
  /** The `scheduling` setting; absent: core's default policy. */
  readonly scheduling?: string;
  /** Thresholds, set whole; absent: the package defaults. */
  readonly thresholds?: Thresholds;
}

/** How one arm sets Pi up: the model's window, the provider cap, compaction and extensions. */
export interface ArmProfile {
  /** Pi's compaction setting (`compaction.enabled`). */
  readonly compaction: boolean;
  /** The model descriptor's `contextWindow` Pi and the runtimes see. */
  readonly contextWindow: number;
  /** Prompts above this are refused by the simulated provider. */
  readonly capTokens: number;
  /** Load pi-fold with these settings. */
  readonly fold?: FoldArmSetup;
  /** Load this Pi extension file. */
  readonly extensionPath?: string;
  /** Set when this core cannot run the arm as defined: the arm reports this instead of running. */
  readonly unavailable?: string;
}

/** The arms `pi-fold replay` runs when `--arms` is not given. */
export const DEFAULT_REPLAY_ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold'];

/** The oracle's window: large enough that nothing a workload sends comes near it. */
const ORACLE_WINDOW = 100_000_000;

/** The seed's fixed band, whatever core's defaults become: `fold-band` always runs it. */
export const SEED_BAND: Thresholds = Object.freeze({ maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 10, minFoldChars: 8000 });

/** Every arm name the lab knows besides `extension:<path>`. */
export const KNOWN_ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold', 'fold-band', 'fold-immediate', 'fold-eager', 'oracle'];

/** Whether core's settings accept a `scheduling` mode (the cost scheduler's modes land in core on their own). */
export function coreSchedulingKnows(mode: string): boolean {
  try {
    resolveSettings({ scheduling: mode });
    return true;
  } catch {
    return false;
  }
}

/** Thresholds a lab run asks for, completed from core's defaults (thresholds are set whole). */
export function wholeThresholds(partial: Partial<Thresholds> | undefined): Thresholds | undefined {
  return partial === undefined ? undefined : { ...DEFAULT_THRESHOLDS, ...partial };
}

/**
 * The fold arms as settings: `fold` is core's default policy; `fold-band` the seed's fixed
 * 0.80/0.40 (`scheduling: "band"`); `fold-immediate` the published ablation (same trigger
 * and aim as the default, each mark landed as soon as due: `"immediate"`); `fold-eager`
 * every closed unit folded at once (`"eager"`). A core from before the cost scheduler knows
 * only `epoch` (the band) and `immediate` (which then means eager): the lab maps onto those
 * and reports the faithful `fold-immediate` as unavailable rather than run the wrong policy.
 * `thresholds` (the lab input) apply to every fold arm but `fold-band`.
 */
export function foldArmSetup(arm: 'fold' | 'fold-band' | 'fold-immediate' | 'fold-eager', budget: number, thresholds: Thresholds | undefined): FoldArmSetup | string {
  const withThresholds = thresholds === undefined ? {} : { thresholds };
  const modern = coreSchedulingKnows('eager');
  switch (arm) {
    case 'fold':
      return { providerInputBudget: budget, ...withThresholds };
    case 'fold-band':
      return { providerInputBudget: budget, scheduling: coreSchedulingKnows('band') ? 'band' : 'epoch', thresholds: SEED_BAND };
    case 'fold-immediate':
      if (!modern) return "fold-immediate needs core's faithful immediate scheduling (same trigger and aim, each mark landed when due); this core's \"immediate\" folds every closed unit at once, which is fold-eager";
      return { providerInputBudget: budget, scheduling: 'immediate', ...withThresholds };
    case 'fold-eager':
      return { providerInputBudget: budget, scheduling: modern ? 'eager' : 'immediate', ...withThresholds };
  }
}

/**
 * The stated setup of every arm:
 * - `unmanaged`: compaction off; a refused prompt ends the arm.
 * - `native`: Pi's own compaction on; the model descriptor is the 272k window, the provider cap refuses above it.
 * - `fold`, `fold-band`, `fold-immediate`, `fold-eager`: pi-fold with `providerInputBudget` = the descriptor and the settings of `foldArmSetup`; Pi's compaction left at its default (on).
 * - `oracle`: no management and no cap: everything in view (recall reference).
 * - `extension:<path>`: that extension file loaded, compaction at Pi's default (on).
 */
export function armProfile(arm: ArmName, settings: LabRunSettings, thresholds?: Thresholds): ArmProfile {
  const descriptor = settings.descriptorTokens;
  const cap = settings.providerCapTokens;
  switch (arm) {
    case 'unmanaged':
      return { compaction: false, contextWindow: descriptor, capTokens: cap };
    case 'native':
      return { compaction: true, contextWindow: descriptor, capTokens: cap };
    case 'fold':
    case 'fold-band':
    case 'fold-immediate':
    case 'fold-eager': {
      const setup = foldArmSetup(arm, descriptor, thresholds);
      return { compaction: true, contextWindow: descriptor, capTokens: cap, ...(typeof setup === 'string' ? { unavailable: setup } : { fold: setup }) };
    }
    case 'oracle':
      return { compaction: false, contextWindow: ORACLE_WINDOW, capTokens: Number.POSITIVE_INFINITY };
    default: {
      const path = arm.slice('extension:'.length);
      if (!arm.startsWith('extension:') || path.length === 0) {
        throw new FoldError('SETTINGS.INVALID', `unknown lab arm "${arm}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`);
      }
      return { compaction: true, contextWindow: descriptor, capTokens: cap, extensionPath: path };
    }
  }
}

/** Parse an arm name from the command line, refusing unknown names by name. */
export function parseArmName(text: string): ArmName {
  if ((KNOWN_ARMS as readonly string[]).includes(text)) return text as ArmName;
  if (text.startsWith('extension:') && text.length > 'extension:'.length) return text as ArmName;
  throw new FoldError('SETTINGS.INVALID', `unknown lab arm "${text}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`);
}
