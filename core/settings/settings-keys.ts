import { FoldError } from '../fold-error.ts';

/**
 * Refuse a key of a settings object that is not a setting, or that was removed (with why),
 * naming it by its path (`thresholds.maxTarget`, `spill.keep`). The one check behind every
 * settings object, so each says the same thing the same way.
 */
export function refuseUnknownSettings(
  record: Readonly<Record<string, unknown>>,
  known: readonly string[],
  path: string,
  removed?: Readonly<Record<string, string>>,
): void {
  for (const key of Object.keys(record)) {
    const option = path === '' ? key : `${path}.${key}`;
    if (removed !== undefined && key in removed) {
      throw new FoldError('SETTINGS.DELETED_OPTION', `${option} was removed: ${removed[key]}`, { details: { option } });
    }
    if (!known.includes(key)) {
      throw new FoldError('SETTINGS.UNKNOWN_OPTION', `${option} is not a setting (known: ${known.join(', ')})`, {
        details: { option },
      });
    }
  }
}
