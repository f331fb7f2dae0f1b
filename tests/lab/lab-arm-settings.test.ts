import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { armProfile, parseArmName } from '../../lab/arms/arm-profile.ts';
import { SEED_BAND } from '../../lab/arms/arms.ts';
import { LAB_PI_VERSION, landingFromEnvironment } from '../../lab/arms/landing.ts';
import { checkedFoldSettings } from '../../lab/arms/run-arm.ts';
import { parseThresholdsOption } from '../../lab/arms/threshold-option.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload, stagedSettings } from '../../lab/workload/run-staged-workload.ts';

const preset = stagedPreset('smoke');

describe("lab arms' settings reach the runtime", () => {
  it('a fold arm run with thresholds runs with exactly those, as the runtime reports them', async () => {
    const run = await runStagedWorkload({
      preset,
      seed: 1,
      arms: ['fold'],
      foldThresholds: { maxTarget: 0.7, minTarget: 0.1 },
    });
    const fold = run.arms[0]!;
    expect(fold.failure).toBeUndefined();
    expect(fold.foldSettings!.thresholds).toEqual({
      maxTarget: 0.7,
      minTarget: 0.1,
      consolidateAfter: 10,
      minFoldChars: 8000,
    });
    // Which landing path the arm used, and on which Pi, rides with its settings into every report.
    expect(fold.foldSettings!.landing).toBe('context-hook');
    expect(fold.foldSettings!.pi).toBe(LAB_PI_VERSION);
  }, 120_000);

  it('a landing asked of a fold arm must be the one its runtime used, and is named when unknown', () => {
    expect(() =>
      checkedFoldSettings(
        'fold',
        { providerInputBudget: 1, landing: 'session-edits' },
        { scheduling: 'cost', thresholds: SEED_BAND, landing: 'context-hook' },
      ),
    ).toThrow(/"landing":"session-edits".*"landing":"context-hook"/);
    expect(landingFromEnvironment({ PI_FOLD_LAB_LANDING: 'session-edits' })).toBe('session-edits');
    expect(landingFromEnvironment({})).toBeUndefined();
    expect(() => landingFromEnvironment({ PI_FOLD_LAB_LANDING: 'edits' })).toThrow(
      /PI_FOLD_LAB_LANDING: unknown landing "edits" \(known: context-hook, session-edits\)/,
    );
  });

  it('refuses a run whose runtime ran with other settings than asked, naming both', () => {
    const asked = {
      providerInputBudget: 30_000,
      scheduling: 'band' as const,
      thresholds: { ...SEED_BAND, minTarget: 0.1 },
    };
    const error = (() => {
      try {
        checkedFoldSettings('fold', asked, { scheduling: 'band', thresholds: SEED_BAND });
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(FoldError.isInstance(error)).toBe(true);
    expect((error as FoldError).code).toBe('SETTINGS.INVALID');
    expect((error as Error).message).toMatch(
      /arm fold: its settings did not reach the runtime: asked .*"minTarget":0.1.*the runtime ran with .*"minTarget":0.4/,
    );
    expect(
      checkedFoldSettings('fold', asked, { scheduling: 'band', thresholds: asked.thresholds }).thresholds.minTarget,
    ).toBe(0.1);
    // The scheduler's price list is read back too: a fold arm deciding by other prices than it is billed by is refused.
    expect(() =>
      checkedFoldSettings(
        'fold',
        { providerInputBudget: 1, priceList: 'claude-sonnet-4-5' },
        { scheduling: 'cost', thresholds: SEED_BAND, priceList: 'gpt-5.6-ledger' },
      ),
    ).toThrow(/"priceList":"claude-sonnet-4-5".*"priceList":"gpt-5.6-ledger"/);
    expect(
      checkedFoldSettings(
        'fold',
        { providerInputBudget: 1, priceList: 'claude-sonnet-4-5' },
        { scheduling: 'cost', thresholds: SEED_BAND, priceList: 'claude-sonnet-4-5' },
      ).priceList,
    ).toBe('claude-sonnet-4-5');
    expect(() =>
      checkedFoldSettings(
        'fold-eager',
        { providerInputBudget: 1, scheduling: 'eager' },
        { scheduling: 'cost', thresholds: SEED_BAND },
      ),
    ).toThrow(/fold-eager.*"scheduling":"eager".*"scheduling":"cost"/);
  });

  it('fold-band keeps the seed band whatever thresholds the run asks of the others', () => {
    const settings = stagedSettings(preset, 1);
    const thresholds = { ...SEED_BAND, maxTarget: 0.7, minTarget: 0.05 };
    expect(armProfile('fold-band', settings, thresholds).fold!.thresholds).toEqual(SEED_BAND);
    expect(armProfile('fold', settings, thresholds).fold!.thresholds).toEqual(thresholds);
    expect(armProfile('fold', settings).fold!.thresholds).toBeUndefined();
  });

  it('names the arms and threshold options it knows when given one it does not', () => {
    for (const name of ['fold', 'fold-hook', 'fold-band', 'fold-immediate', 'fold-eager', 'extension:/x.ts'])
      expect(parseArmName(name)).toBe(name);
    expect(() => parseArmName('fold-lazy')).toThrow(
      /unknown lab arm "fold-lazy" \(known: unmanaged, native, fold, fold-hook, fold-band, fold-immediate, fold-eager, oracle, extension:<path>\)/,
    );
    expect(parseThresholdsOption('maxTarget=0.7, minTarget=0.05')).toEqual({ maxTarget: 0.7, minTarget: 0.05 });
    expect(() => parseThresholdsOption('maxTarget=high')).toThrow(
      /--thresholds takes name=value pairs of maxTarget, minTarget, consolidateAfter, minFoldChars, got "maxTarget=high"/,
    );
    expect(() => parseThresholdsOption('band=0.8')).toThrow(/got "band=0.8"/);
  });
});
