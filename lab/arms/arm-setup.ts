import type { SchedulingMode, Thresholds } from '../../core/settings/settings.ts';
import type { LandingStrategy } from './landing.ts';

// The shapes an arm is set up with, apart from the registry that fills them (arms.ts) and the
// lookup that picks one (arm-profile.ts), so both can name them without naming each other.

/** The part of a run's settings (`LabRunSettings`) an arm's profile reads. */
export interface ArmWindowSettings {
  /** The window the runtimes budget against. */
  readonly descriptorTokens: number;
  /** Prompts above this are refused by the simulated provider. */
  readonly providerCapTokens: number;
}

/** pi-fold's setup in a fold arm: the settings it must run with (checked against the runtime after the run). */
export interface FoldArmSetup {
  readonly providerInputBudget: number;
  /** The `scheduling` setting; absent: core's default policy. */
  readonly scheduling?: SchedulingMode;
  /** Thresholds, set whole; absent: the package defaults. */
  readonly thresholds?: Thresholds;
  /** The landing to force (`landing.ts`); absent: the runtime's choice for the host. */
  readonly landing?: LandingStrategy;
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
