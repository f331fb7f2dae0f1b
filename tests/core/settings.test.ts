import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_THRESHOLDS, resolveSettings, resolveThresholds } from '../../core/settings/settings.ts';

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (FoldError.isInstance(error)) return error.message;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('settings (B6.4)', () => {
  it('defaults are the documented band', () => {
    expect(resolveSettings({}).thresholds).toEqual({
      maxTarget: 0.8,
      minTarget: 0.4,
      consolidateAfter: 10,
      minFoldChars: 8000,
    });
    expect(resolveThresholds(undefined)).toBe(DEFAULT_THRESHOLDS);
  });

  it('an impossible policy is refused by name, never clamped', () => {
    const base = { maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 10, minFoldChars: 8000 };
    expect(codeOf(() => resolveThresholds({ ...base, minTarget: 0.9 }))).toMatch(
      /SETTINGS.INVALID.*minTarget \(0.9\) must be below maxTarget/,
    );
    expect(codeOf(() => resolveThresholds({ ...base, maxTarget: 1.5 }))).toMatch(/SETTINGS.INVALID.*maxTarget/);
    expect(codeOf(() => resolveThresholds({ ...base, consolidateAfter: 1 }))).toMatch(/consolidateAfter/);
    expect(codeOf(() => resolveThresholds({ ...base, minFoldChars: 12.5 }))).toMatch(/minFoldChars/);
    expect(codeOf(() => resolveThresholds({ ...base, maxTarget: Number.NaN }))).toMatch(/maxTarget/);
    expect(codeOf(() => resolveThresholds({ maxTarget: 0.7 }))).toMatch(
      /set whole: missing minTarget, consolidateAfter, minFoldChars/,
    );
  });

  it('deleted option names are refused with the reason', () => {
    expect(codeOf(() => resolveSettings({ summarizer: () => 'x' }))).toMatch(
      /SETTINGS.DELETED_OPTION: summarizer was removed: model-written summaries/,
    );
    expect(codeOf(() => resolveSettings({ guidance: {} }))).toMatch(/SETTINGS.DELETED_OPTION: guidance was removed/);
    expect(codeOf(() => resolveSettings({ thresholds: { ...DEFAULT_THRESHOLDS, freshTail: 4 } }))).toMatch(
      /SETTINGS.DELETED_OPTION: thresholds.freshTail was removed: fresh-tail/,
    );
  });

  it('unknown names and bad values are refused', () => {
    expect(codeOf(() => resolveSettings({ maxTarget: 0.5 }))).toMatch(/SETTINGS.UNKNOWN_OPTION: maxTarget/);
    expect(codeOf(() => resolveSettings({ providerInputBudget: -5 }))).toMatch(/providerInputBudget/);
    expect(codeOf(() => resolveSettings({ scheduling: 'lazy' }))).toMatch(/scheduling/);
    expect(codeOf(() => resolveSettings({ blacklistAutoFoldTools: 'bash' }))).toMatch(/blacklistAutoFoldTools/);
    expect(codeOf(() => resolveSettings({ toolName: 'has space' }))).toMatch(/toolName/);
  });
});
