import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_THRESHOLDS, type Thresholds } from '../../core/settings/settings.ts';
import type { LabRunSettings } from '../report/lab-records.ts';
import type { ArmProfile } from './arm-setup.ts';
import { ARMS, type ArmName, isKnownArm, KNOWN_ARMS } from './arms.ts';

/** The arms `pi-fold replay` runs when `--arms` is not given. */
export const DEFAULT_REPLAY_ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold'];

/** Thresholds a lab run asks for, completed from core's defaults (thresholds are set whole). */
export function wholeThresholds(partial: Partial<Thresholds> | undefined): Thresholds | undefined {
  return partial === undefined ? undefined : { ...DEFAULT_THRESHOLDS, ...partial };
}

/**
 * The stated setup of an arm: the registry's profile (`ARMS`, lab/arms/arms.ts), or for
 * `extension:<path>` that extension file loaded, compaction at Pi's default (on).
 */
export function armProfile(arm: ArmName, settings: LabRunSettings, thresholds?: Thresholds): ArmProfile {
  if (isKnownArm(arm)) return ARMS[arm].profile(settings, thresholds);
  const path = arm.slice('extension:'.length);
  if (!arm.startsWith('extension:') || path.length === 0) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `unknown lab arm "${arm}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`,
    );
  }
  return {
    compaction: true,
    contextWindow: settings.descriptorTokens,
    capTokens: settings.providerCapTokens,
    extensionPath: path,
  };
}

/** Parse an arm name from the command line, refusing unknown names by name. */
export function parseArmName(text: string): ArmName {
  if (isKnownArm(text)) return text;
  if (text.startsWith('extension:') && text.length > 'extension:'.length) return text as ArmName;
  throw new FoldError(
    'SETTINGS.INVALID',
    `unknown lab arm "${text}" (known: ${KNOWN_ARMS.join(', ')}, extension:<path>)`,
  );
}
