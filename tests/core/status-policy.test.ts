import { describe, expect, it } from 'vitest';
import { driveSession } from '../support/drive-session.ts';

/** The first line of `status`: the budget, the occupancy and the commit policy in force. */
async function statusHead(settings: Record<string, unknown>): Promise<string> {
  const { runtime } = await driveSession({ seed: 5, steps: 6, settings });
  const answer = await runtime.act({ action: 'status' });
  return answer.text.split('\n')[0]!;
}

describe('status names the commit policy actually in force', () => {
  it('the cost default names its floor and fence, not a band it does not use', async () => {
    // A budget from 80k up holds the whole 20,000-token floor (a quarter of the budget at most).
    const head = await statusHead({ providerInputBudget: 100_000 });
    expect(head).toContain('cost-scheduled: commits when that is cheaper, keeps ≥20000 raw tokens, never past 0.8');
    expect(head).not.toContain('down to');
  });

  it('the band names its trigger and aim, and the floor it keeps', async () => {
    expect(
      await statusHead({
        providerInputBudget: 100_000,
        scheduling: 'band',
        thresholds: { maxTarget: 0.7, minTarget: 0.3, consolidateAfter: 10, minFoldChars: 8000 },
      }),
    ).toContain('commit at 0.7, down to 0.3, keeps ≥20000 raw tokens');
  });

  it('a floor larger than a quarter of the budget is shown as the quarter it is capped to', async () => {
    expect(await statusHead({ providerInputBudget: 30_000 })).toContain('keeps ≥7500 raw tokens');
  });

  it('eager says it folds every closed unit', async () => {
    expect(await statusHead({ scheduling: 'eager' })).toContain(
      'eager: folds every closed unit at once, never past 0.8',
    );
  });
});
