import { FoldError } from '../../core/fold-error.ts';
import type { Thresholds } from '../../core/settings/settings.ts';

const THRESHOLD_NAMES: readonly (keyof Thresholds)[] = ['maxTarget', 'minTarget', 'consolidateAfter', 'minFoldChars'];

/** `maxTarget=0.7,minTarget=0.05` → thresholds (the rest from the defaults; the runtime validates the whole). */
export function parseThresholdsOption(text: string): Partial<Thresholds> {
  const thresholds: Partial<Record<keyof Thresholds, number>> = {};
  for (const pair of text.split(',')) {
    const [name, value, extra] = pair.split('=').map((part) => part.trim());
    if (
      !(THRESHOLD_NAMES as readonly string[]).includes(name ?? '') ||
      value === undefined ||
      extra !== undefined ||
      !Number.isFinite(Number(value)) ||
      value === ''
    ) {
      throw new FoldError(
        'SETTINGS.INVALID',
        `--thresholds takes name=value pairs of ${THRESHOLD_NAMES.join(', ')}, got "${pair}"`,
      );
    }
    thresholds[name as keyof Thresholds] = Number(value);
  }
  return thresholds;
}
