import { VERSION } from '@mariozechner/pi-coding-agent';
import { FoldError } from '../../core/fold-error.ts';

/**
 * How a fold arm's commits reach Pi (docs/pi-context-edits.md): `context-hook` rewrites the
 * message list in the `context` event before every request; `session-edits` appends Pi's own
 * `context_edit` entries at a turn boundary (Pi ≥ 0.87).
 */
export type LandingStrategy = 'context-hook' | 'session-edits';

export const LANDING_STRATEGIES: readonly LandingStrategy[] = ['context-hook', 'session-edits'];

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

/**
 * The pi-fold settings that force a landing. This build lands every commit through the
 * `context` hook and has no setting to choose: asking for it needs none, and asking for
 * `session-edits` is refused rather than measured under a path that did not run.
 */
export function landingSettings(landing: LandingStrategy | undefined): Record<string, never> {
  if (landing === undefined || landing === 'context-hook') return {};
  throw new FoldError(
    'SETTINGS.INVALID',
    `landing ${landing}: this build of pi-fold lands every commit through the context hook (Pi ${LAB_PI_VERSION})`,
  );
}

/** The landing a fold arm's runtime really used, read back after the run (this build has one path). */
export function landingUsed(): LandingStrategy {
  return 'context-hook';
}
