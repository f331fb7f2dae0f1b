import type { Thresholds } from '../../core/settings/settings.ts';
import type { SdkArmName } from '../ai-sdk/sdk-arms.ts';
import type { ArmProfile, ArmWindowSettings, FoldArmSetup } from './arm-setup.ts';

/**
 * Every arm the lab knows besides `extension:<path>`, with the profile that sets Pi up for it.
 * `ArmName` and `KNOWN_ARMS` derive from this object, so adding an arm is one entry here:
 * a name and its profile. The order is the order the lab lists and runs them in.
 */
interface ArmDefinition {
  /** How the arm sets Pi up under a run's settings; `thresholds` are the run's (fold arms may ignore them). */
  readonly profile: (settings: ArmWindowSettings, thresholds: Thresholds | undefined) => ArmProfile;
}

/** The seed's fixed band, whatever core's defaults become: `fold-band` always runs it. */
export const SEED_BAND: Thresholds = Object.freeze({
  maxTarget: 0.8,
  minTarget: 0.4,
  consolidateAfter: 10,
  minFoldChars: 8000,
});

/** The oracle's window: large enough that nothing a workload sends comes near it. */
const ORACLE_WINDOW = 100_000_000;

/** No management: compaction on or off, the descriptor's window and the provider's cap. */
const plainArm = (compaction: boolean): ArmDefinition => ({
  profile: (settings) => ({
    compaction,
    contextWindow: settings.descriptorTokens,
    capTokens: settings.providerCapTokens,
  }),
});

/**
 * pi-fold with `providerInputBudget` = the descriptor and the setup given; Pi's compaction left
 * at its default (on).
 */
const foldArm = (setup: (budget: number, thresholds: Thresholds | undefined) => FoldArmSetup): ArmDefinition => ({
  profile: (settings, thresholds) => ({
    compaction: true,
    contextWindow: settings.descriptorTokens,
    capTokens: settings.providerCapTokens,
    fold: setup(settings.descriptorTokens, thresholds),
  }),
});

const withThresholds = (thresholds: Thresholds | undefined) => (thresholds === undefined ? {} : { thresholds });

/**
 * - `unmanaged`: compaction off; a refused prompt ends the arm.
 * - `native`: Pi's own compaction on; the model descriptor is the 272k window, the provider cap refuses above it.
 * - `fold`: core's default policy (no `scheduling` set), with the run's thresholds, landing as the host allows
 *   (Pi's own context edits on Pi ≥ 0.87).
 * - `fold-hook`: the same, landing every commit through the `context` hook (the Pi 0.73 path, forced):
 *   beside `fold` it shows what the landing path alone changes.
 * - `fold-band`: `"band"` at the seed's 0.80/0.40, whatever thresholds the run asks for.
 * - `fold-immediate`: `"immediate"`, the published ablation (the default's trigger and aim, each mark landed as soon as due).
 * - `fold-eager`: `"eager"`, every closed unit folded at once.
 * - `oracle`: no management and no cap: everything in view (recall reference).
 */
export const ARMS = {
  unmanaged: plainArm(false),
  native: plainArm(true),
  fold: foldArm((budget, thresholds) => ({ providerInputBudget: budget, ...withThresholds(thresholds) })),
  'fold-hook': foldArm((budget, thresholds) => ({
    providerInputBudget: budget,
    landing: 'context-hook',
    ...withThresholds(thresholds),
  })),
  'fold-band': foldArm((budget) => ({ providerInputBudget: budget, scheduling: 'band', thresholds: SEED_BAND })),
  'fold-immediate': foldArm((budget, thresholds) => ({
    providerInputBudget: budget,
    scheduling: 'immediate',
    ...withThresholds(thresholds),
  })),
  'fold-eager': foldArm((budget, thresholds) => ({
    providerInputBudget: budget,
    scheduling: 'eager',
    ...withThresholds(thresholds),
  })),
  oracle: {
    profile: () => ({ compaction: false, contextWindow: ORACLE_WINDOW, capTokens: Number.POSITIVE_INFINITY }),
  },
} as const satisfies Readonly<Record<string, ArmDefinition>>;

/** An arm of the registry. */
export type KnownArmName = keyof typeof ARMS;

/** Which runtime managed the context for an arm: one of `ARMS`, a Pi extension file, or an AI SDK arm (lab/ai-sdk). */
export type ArmName = KnownArmName | SdkArmName | `extension:${string}`;

/** Every arm name the lab knows besides `extension:<path>`, in the registry's order. */
export const KNOWN_ARMS: readonly KnownArmName[] = Object.freeze(Object.keys(ARMS) as KnownArmName[]);

/** Whether `name` is an arm of the registry (and not, say, `toString`). */
export function isKnownArm(name: string): name is KnownArmName {
  return Object.hasOwn(ARMS, name);
}
