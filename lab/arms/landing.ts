import { VERSION } from '@mariozechner/pi-coding-agent';
import type { LandingStrategy } from '../../adapters/hosts/pi/landing/pi-landing.ts';
import { FoldError } from '../../core/fold-error.ts';

/** The landings a lab run can force (docs/pi.md, "Landing as context edits"). */
export const LANDING_STRATEGIES: readonly LandingStrategy[] = ['context-hook', 'session-edits'];

export type { LandingStrategy };

/** The environment variable a lab run, a replay or a bench reads to force one landing on every fold arm. */
export const LANDING_ENVIRONMENT_VARIABLE = 'PI_FOLD_LAB_LANDING';

/** The Pi the lab runs on (the pinned 0.73 host, or a peer's under lab/peers/run-on-pi.sh). */
export const LAB_PI_VERSION: string = VERSION;

/** A landing named on the command line or in the environment, refused by name when unknown. */
export function parseLanding(text: string, source: string): LandingStrategy {
  if ((LANDING_STRATEGIES as readonly string[]).includes(text)) return text as LandingStrategy;
  throw new FoldError(
    'SETTINGS.INVALID',
    `${source}: unknown landing "${text}" (known: ${LANDING_STRATEGIES.join(', ')})`,
  );
}

/** The landing the environment forces, or undefined: the runtime chooses by the host it finds. */
export function landingFromEnvironment(environment: NodeJS.ProcessEnv = process.env): LandingStrategy | undefined {
  const text = environment[LANDING_ENVIRONMENT_VARIABLE];
  return text === undefined || text.length === 0 ? undefined : parseLanding(text, LANDING_ENVIRONMENT_VARIABLE);
}

/** The `registerPiFold` option that forces a landing: none when the runtime may choose by its host. */
export function landingOption(landing: LandingStrategy | undefined): { readonly landing?: LandingStrategy } {
  return landing === undefined ? {} : { landing };
}
