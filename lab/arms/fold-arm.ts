import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import type { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import type { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { type PiFoldRegistration, registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { FoldError } from '../../core/fold-error.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import type { Thresholds } from '../../core/settings/settings.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { Projection } from '../../ports/projection-sink.port.ts';
import type { ArmName, FoldArmSettings } from '../report/lab-records.ts';
import type { FoldArmSetup } from './arm-setup.ts';
import type { HookTimer } from './hook-timer.ts';
import { LAB_PI_VERSION, type LandingStrategy, landingOption } from './landing.ts';

/** The stores a fold arm's runtime writes (in memory: the byte audit reads them after the run). */
export type ArmStores = { readonly foldStore: MemoryFoldStore; readonly evidenceStore: MemoryEvidenceStore };

/**
 * pi-fold as a fold arm loads it. Its scheduler decides with the price list the provider
 * bills by (a replay's: the recorded model's), not the ledger default: a fold arm that weighed
 * other prices than it is billed would be measured under a policy no real host runs.
 */
export function foldFactory(
  fold: FoldArmSetup,
  priceList: PriceList,
  stores: ArmStores,
  settingsPath: string,
  hookTimer: HookTimer,
  onProjection: (projection: Projection) => void,
  onRegistered: (registration: PiFoldRegistration) => void,
): (pi: ExtensionAPI) => void {
  return (pi) => {
    const registration = registerPiFold(hookTimer.wrap(pi), {
      ...stores,
      settingsPath,
      settings: {
        providerInputBudget: fold.providerInputBudget,
        ...(fold.scheduling === undefined ? {} : { scheduling: fold.scheduling }),
        ...(fold.thresholds === undefined ? {} : { thresholds: fold.thresholds }),
      },
      ...landingOption(fold.landing),
      projectionSink: { specificationVersion: 'v1', accept: onProjection },
      costModel: createCharsCostModel({ priceList }),
    });
    onRegistered(registration);
  };
}

/**
 * The settings file a fold arm's runtime reads. Pi's registration lets the file's thresholds
 * win over the ones passed in code, so an arm's thresholds are also written to a file of its
 * own; without thresholds the path does not exist: the package defaults, never this machine's file.
 */
export function foldSettingsFile(scratch: string, fold: FoldArmSetup): string {
  const path = join(scratch, 'pi-fold-settings.json');
  if (fold.thresholds !== undefined) writeFileSync(path, `${JSON.stringify({ thresholds: fold.thresholds })}\n`);
  return path;
}

/** The settings the runtime really ran with, refused when they are not the arm's (a lab figure under the wrong policy is worse than none). */
export function checkedFoldSettings(
  arm: ArmName,
  asked: FoldArmSetup & { readonly priceList?: string },
  running: {
    readonly scheduling: string;
    readonly thresholds: Thresholds;
    readonly priceList?: string;
    readonly landing?: LandingStrategy;
    readonly landingRequests?: { readonly sentByPi: number; readonly sentByHook: number; readonly landings: number };
  },
): FoldArmSettings {
  const { maxTarget, minTarget, consolidateAfter, minFoldChars } = running.thresholds;
  const effective: FoldArmSettings = {
    scheduling: running.scheduling,
    thresholds: { maxTarget, minTarget, consolidateAfter, minFoldChars },
    ...(running.priceList === undefined ? {} : { priceList: running.priceList }),
    ...(running.landing === undefined ? {} : { landing: running.landing, pi: LAB_PI_VERSION }),
    ...(running.landing === 'session-edits' && running.landingRequests !== undefined
      ? { landingRequests: running.landingRequests }
      : {}),
  };
  const thresholdsDiffer =
    asked.thresholds !== undefined &&
    (Object.keys(asked.thresholds) as (keyof Thresholds)[]).some(
      (key) => asked.thresholds![key] !== running.thresholds[key],
    );
  const schedulingDiffers = asked.scheduling !== undefined && asked.scheduling !== running.scheduling;
  const pricesDiffer = asked.priceList !== undefined && asked.priceList !== running.priceList;
  const landingDiffers = asked.landing !== undefined && asked.landing !== running.landing;
  if (thresholdsDiffer || schedulingDiffers || pricesDiffer || landingDiffers) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `arm ${arm}: its settings did not reach the runtime: asked ${JSON.stringify({ scheduling: asked.scheduling, thresholds: asked.thresholds, priceList: asked.priceList, landing: asked.landing })}, the runtime ran with ${JSON.stringify(effective)}`,
      { details: { arm } },
    );
  }
  return effective;
}
