import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import type { LoopRun } from '../vercel-ai/support/run-loop.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';
import { recordViewedSession } from './support/viewed-session.ts';

const executable = chromiumPath();
// Under CI the browser is installed by .ci/run, so a missing one is a failure, not a skip.
const runIt = executable !== undefined || process.env.CI === 'true' ? describe : describe.skip;

let browser: Browser;
let run: LoopRun;
let pagePath: string;
let agentHits: { foldId: string }[];
const needle = 'module_3.ts';

runIt('the session viewer in headless Chromium', () => {
  beforeAll(async () => {
    if (executable === undefined)
      throw new Error('no Chromium found (apt-get install chromium, or set PI_FOLD_CHROMIUM)');
    let root: string;
    ({ root, run } = await recordViewedSession(48, async (live) => {
      // The agent's own verified search, on the live runtime, is what the page's search must agree with.
      agentHits = (
        (await live.folding.runtime.act({ action: 'search', pattern: needle })).data as { hits: { foldId: string }[] }
      ).hits;
    }));
    pagePath = join(root, '..', `browser-view-${Date.now()}.html`);
    expect(
      await runCli(['view', root, '--out', pagePath], { out: () => undefined, error: (line) => console.error(line) }),
    ).toBe(0);
    browser = await launchBrowser(executable);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('draws one chart point per request, opens a fold to its exact bytes, and finds a folded string by search, with no console error', async () => {
    const { page, errors } = await openInBrowser(browser, pagePath);
    const ledger = run.folding.runtime.view.ledger;
    expect(await page.$$eval('#prompt-chart circle.point', (points) => points.length)).toBe(ledger.length);
    expect(await page.$$eval('#prompt-chart line.commit', (lines) => lines.length)).toBe(
      ledger.filter((row) => row.foldsLanded > 0).length,
    );

    // Open the first fold that has raw entries: the page shows that entry's exact stored text.
    const data = JSON.parse(readFileSync(pagePath, 'utf8').match(/id="viewer-data">([\s\S]*?)<\/script>/)![1]!) as {
      folds: { id: string; parts: { sha256?: string }[] }[];
      sources: Record<string, string>;
    };
    const fold = data.folds.find((candidate) => candidate.parts.some((part) => part.sha256 !== undefined))!;
    const firstSource = data.sources[fold.parts.find((part) => part.sha256 !== undefined)!.sha256!]!;
    await page.click(`a[data-fold="${fold.id}"]`);
    expect(await page.$eval('#fold-detail', (element) => element.getAttribute('data-open'))).toBe(fold.id);
    const shown = await page.$eval('#fold-detail pre.source', (element) => element.textContent ?? '');
    expect(shown).toContain(firstSource.slice(0, Math.min(firstSource.length, 2_000)));

    // Search: a string the agent's own verified search finds in a fold is found by the page too.
    expect(agentHits.length).toBeGreaterThan(0);
    await page.type('#search-pattern', needle);
    await page.click('#search-form button[type="submit"]');
    const pageHits = await page.$$eval('#search-results a.hit', (links) =>
      links.map((link) => link.getAttribute('data-hit-fold')),
    );
    expect(pageHits.length).toBeGreaterThanOrEqual(agentHits.length);
    expect(pageHits).toContain(agentHits[0]!.foldId);
    await page.click('#search-results a.hit');
    expect(await page.$eval('#fold-detail pre.source', (element) => element.textContent ?? '')).toContain(needle);
    expect(errors).toEqual([]);
  }, 120_000);
});
