import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_THRESHOLDS, type SchedulingMode, type Thresholds } from '../../core/settings.ts';
import type { ArmName, LabRunSettings } from '../report/lab-records.ts';

/** pi-fold's setup in a fold arm: the settings it must run with (checked against the runtime after the run). */
export interface FoldArmSetup {
  readonly providerInputBudget: number;
  /** The `scheduling` setting; absent: core's default policy. */
  readonly scheduling?: SchedulingMode;
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
}

/** The arms `pi-fold replay` runs when `--arms` is not given. */
export const DEFAULT_REPLAY_ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold'];

/** The oracle's window: large enough that nothing a workload sends comes near it. */
const ORACLE_WINDOW = 100_000_000;

/** The seed's fixed band, whatever core's defaults become: `fold-band` always runs it. */
export const SEED_BAND: Thresholds = Object.freeze({
  maxTarget: 0.8,
  minTarget: 0.4,
  consolidateAfter: 10,
  minFoldChars: 8000,
});

/** Every arm name the lab knows besides `extension:<path>`. */
export const KNOWN_ARMS: readonly ArmName[] = [
  'unmanaged',
  'native',
  'fold',
  'fold-band',
  'fold-immediate',
  'fold-eager',
  'oracle',
];

/** Thresholds a lab run asks for, completed from core's defaults (thresholds are set whole). */
export function wholeThresholds(partial: Partial<Thresholds> | undefined): Thresholds | undefined {
  return partial === undefined ? undefined : { ...DEFAULT_THRESHOLDS, ...partial };
}

/**
 * The fold arms as core's `scheduling` settings: `fold` sets none (core's default policy);
 * `fold-band` is `"band"` at the seed's 0.80/0.40; `fold-immediate` is `"immediate"`, the
 * published ablation (the default's trigger and aim, each mark landed as soon as due);
 * `fold-eager` is `"eager"`, every closed unit folded at once. `thresholds` (the lab input)
 * apply to every fold arm but `fold-band`.
 */
export function foldArmSetup(
  arm: 'fold' | 'fold-band' | 'fold-immediate' | 'fold-eager',
  budget: number,
  thresholds: Thresholds | undefined,
): FoldArmSetup {
  const withThresholds = thresholds === undefined ? {} : { thresholds };
  switch (arm) {
    case 'fold':
      return { providerInputBudget: budget, ...withThresholds };
    case 'fold-band':
      return { providerInputBudget: budget, scheduling: 'band', thresholds: SEED_BAND };
    case 'fold-immediate':
      return { providerInputBudget: budget, scheduling: 'immediate', ...withThresholds };
    case 'fold-eager':
      return { providerInputBudget: budget, scheduling: 'eager', ...withThresholds };
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
    case 'fold-eager':
      return {
        compaction: true,
        contextWindow: descriptor,
        capTokens: cap,
        fold: foldArmSetup(arm, descriptor, thresholds),
      };
    case 'oracle':
      return { compaction: false, contextWindow: ORACLE_WINDOW, capTokens: Number.POSITIVE_INFINITY };
    default: {
      const path = arm.slice('extension:'.length);
      if (!arm.startsWith('extension:') || path.length === 0) {
        throw new FoldError(
          'SETTINGS.INVALID',
          `unknown lab arm "${arm}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`,
        );
      }
      return { compaction: true, contextWindow: descriptor, capTokens: cap, extensionPath: path };
    }
  }
}

/** Parse an arm name from the command line, refusing unknown names by name. */
export function parseArmName(text: string): ArmName {
  if ((KNOWN_ARMS as readonly string[]).includes(text)) return text as ArmName;
  if (text.startsWith('extension:') && text.length > 'extension:'.length) return text as ArmName;
  throw new FoldError(
    'SETTINGS.INVALID',
    `unknown lab arm "${text}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`,
  );
}
