import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { formatArmTable } from '../../lab/report/arm-table.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');
const silent = { write: () => true, isTTY: false };

describe('a replay says what the fold arm learned of the provider cache', () => {
  it('reads back the losses the recording shows after pauses, and the report prints them', async () => {
    // The first 250 requests of this recording hold a dozen cold caches after a person's pause.
    const path = join(fixtures, 'pi-mono/large-session.jsonl');
    const report = await replayTranscript({ path, arms: ['fold'], maxRequests: 250, progress: silent });
    const learned = report.run.arms[0]!.foldSettings?.providerCache;
    expect(learned?.losses).toBeGreaterThanOrEqual(2);
    expect(learned?.steps.length).toBeGreaterThan(0);
    expect(formatArmTable(report.run)).toMatch(
      /fold learned from the provider's reports: read from cache on \d+ pure appends, gone on \d+; chance the cache is gone after a pause of ≥\d+ s \d+%/,
    );
  });
});
