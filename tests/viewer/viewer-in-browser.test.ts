import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import type { LoopRun } from '../vercel-ai/support/run-loop.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';
import { clippedAt } from './support/narrow-window.ts';
import { embeddedViewerData } from './support/page-data.ts';
import { recordViewedSession } from './support/viewed-session.ts';

const executable = chromiumPath();
// Under CI the browser is installed by .ci/run, so a missing one is a failure, not a skip.
const runIt = executable !== undefined || process.env.CI === 'true' ? describe : describe.skip;

let browser: Browser;
let run: LoopRun;
let pagePath: string;
let agentHits: { foldId: string }[];
const needle = 'module_3.ts';
/** Every read of the scripted loop is a ~12 KB file: above this threshold each one spills. */
const SPILLING = { spill: { thresholdBytes: 8_192, keepBytes: 2_048 } };

async function writePage(root: string, name: string): Promise<string> {
  const path = join(root, '..', `${name}-${Date.now()}.html`);
  const lines: string[] = [];
  const code = await runCli(['view', root, '--out', path], { out: () => undefined, error: (line) => lines.push(line) });
  expect(code, lines.join('\n')).toBe(0);
  return path;
}

async function openReady(path: string): Promise<{ page: Page; errors: string[] }> {
  const opened = await openInBrowser(browser, path);
  await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
  return opened;
}

runIt('the session viewer in headless Chromium', () => {
  beforeAll(async () => {
    if (executable === undefined)
      throw new Error('no Chromium found (apt-get install chromium, or set PI_FOLD_CHROMIUM)');
    let root: string;
    ({ root, run } = await recordViewedSession(
      48,
      async (live) => {
        // The agent's own verified search, on the live runtime, is what the page's search must agree with.
        agentHits = (
          (await live.folding.runtime.act({ action: 'search', pattern: needle })).data as {
            hits: { foldId: string }[];
          }
        ).hits;
      },
      SPILLING,
    ));
    pagePath = await writePage(root, 'browser-view');
    browser = await launchBrowser(executable);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('leads with what folding did, tokens and dollars against the unfolded window, before the counts', async () => {
    const { page, errors } = await openReady(pagePath);
    const headline = await page.$eval('.headline', (element) => element.textContent ?? '');
    const meta = await page.$eval('header > p.meta', (element) => element.textContent ?? '');
    const headlineTop = await page.$eval('.headline', (element) => element.getBoundingClientRect().top);
    const metaTop = await page.$eval('header > p.meta', (element) => element.getBoundingClientRect().top);
    expect(headlineTop).toBeLessThan(metaTop);
    expect(meta).toMatch(/\d+ requests/);
    // The figures are the request log's own: the last prompt, and every prompt summed.
    const ledger = run.folding.runtime.view.ledger;
    const number = (text: string) => Number(text.replace(/,/g, ''));
    const last = /The last request sent ([\d,]+) prompt tokens; unfolded it would have sent ([\d,]+)/.exec(headline);
    expect(last, headline).not.toBeNull();
    expect(number(last![1]!)).toBe(ledger.at(-1)!.estimatedTokens);
    expect(number(last![2]!)).toBeGreaterThan(number(last![1]!));
    const total = /: ([\d,]+) prompt tokens sent against ([\d,]+) unfolded \((0\.\d\d)×\)/.exec(headline);
    expect(total, headline).not.toBeNull();
    expect(number(total![1]!)).toBe(ledger.reduce((sum, row) => sum + row.estimatedTokens, 0));
    expect(number(total![2]!)).toBeGreaterThan(number(total![1]!));
    const dollars = /Prompt cost: \$(\d+\.\d+) against \$(\d+\.\d+) unfolded/.exec(headline);
    expect(dollars, headline).not.toBeNull();
    expect(Number(dollars![1])).toBeLessThan(Number(dollars![2]));
    expect(errors).toEqual([]);
  }, 60_000);

  it('at 800 px wide every chart label stays inside its chart and the page needs no sideways scroll', async () => {
    const { page } = await openReady(pagePath);
    const clipped = await clippedAt(page, 800);
    expect(clipped.labels).toEqual([]);
    expect(clipped.documentWidth).toBeLessThanOrEqual(800);
  }, 60_000);

  it('draws one chart point per request, opens a fold decoded and as its exact bytes, and finds a folded string by search, with no console error', async () => {
    const { page, errors } = await openReady(pagePath);
    const ledger = run.folding.runtime.view.ledger;
    expect(await page.$$eval('#prompt-chart circle.point', (points) => points.length)).toBe(ledger.length);
    expect(await page.$$eval('#prompt-chart line.commit', (lines) => lines.length)).toBe(
      ledger.filter((row) => row.foldsLanded > 0).length,
    );

    // Open a fold whose first entry is a file read: decoded first, the exact stored text one toggle away.
    const data = embeddedViewerData(readFileSync(pagePath, 'utf8'));
    const readsAFile = (sha256: string | undefined) =>
      sha256 !== undefined && findLongestString(JSON.parse(data.sources[sha256]!)).includes('\n');
    const fold = data.folds.find((candidate) => candidate.parts.some((part) => readsAFile(part.sha256)))!;
    const firstSource = data.sources[fold.parts.find((part) => readsAFile(part.sha256))!.sha256!]!;
    await page.click(`a[data-fold="${fold.id}"]`);
    expect(await page.$eval('#fold-detail', (element) => element.getAttribute('data-open'))).toBe(fold.id);
    const decoded = await page.$eval('#fold-detail pre.source', (element) => element.textContent ?? '');
    // The file the tool returned, as a person reads it: real line breaks and quotes, no JSON escapes.
    const fileText = findLongestString(JSON.parse(firstSource));
    expect(decoded).toContain(fileText.slice(0, 1_000));
    expect(decoded).not.toContain(firstSource.slice(0, 200));
    await page.click('#fold-detail button.source-mode');
    expect(await page.$eval('#fold-detail', (element) => element.getAttribute('data-mode'))).toBe('raw');
    const raw = await page.$eval('#fold-detail pre.source', (element) => element.textContent ?? '');
    expect(raw).toContain(firstSource.slice(0, Math.min(firstSource.length, 2_000)));

    // Search: a string the agent's own verified search finds in a fold is found by the page too.
    expect(agentHits.length).toBeGreaterThan(0);
    await page.type('#search-pattern', needle);
    await page.click('#search-form button[type="submit"]');
    await page.waitForSelector('#search-summary');
    const pageHits = await page.$$eval('#search-results a.hit', (links) =>
      links.map((link) => link.getAttribute('data-hit-fold')),
    );
    expect(pageHits.length).toBeGreaterThanOrEqual(agentHits.length);
    expect(pageHits).toContain(agentHits[0]!.foldId);
    await page.click('#search-results a.hit');
    expect(await page.$eval('#fold-detail pre.source', (element) => element.textContent ?? '')).toContain(needle);
    expect(errors).toEqual([]);
  }, 120_000);

  it('lists every spill with its size, and links a folded one to its fold', async () => {
    const { page, errors } = await openReady(pagePath);
    const spilled = (run.folding.runtime.view.frozen ?? []).flatMap((message) =>
      message.kind === 'spilled' ? message.spills.map((pointer) => pointer.id) : [],
    );
    const listed = await page.$$eval('#spills tr.spill', (rows) =>
      rows.map((row) => ({
        id: row.getAttribute('data-spill'),
        cells: [...row.querySelectorAll('td')].map((cell) => cell.textContent ?? ''),
        fold: row.querySelector('a[data-fold]')?.getAttribute('data-fold') ?? null,
      })),
    );
    // Every read spilled: the raw ones still in the window, and the folded ones inside their folds.
    expect(listed.length).toBeGreaterThan(spilled.length);
    expect(listed.map((row) => row.id)).toEqual(expect.arrayContaining(spilled));
    for (const row of listed) expect(Number(row.cells[1]!.replace(/,/g, ''))).toBeGreaterThan(8_192);
    const folded = listed.find((row) => row.fold !== null)!;
    await page.click(`#spills tr[data-spill="${folded.id}"] a[data-fold]`);
    expect(await page.$eval('#fold-detail', (element) => element.getAttribute('data-open'))).toBe(folded.fold);
    expect(errors).toEqual([]);
  }, 60_000);

  it('lists the folds in the order they landed', async () => {
    const { page } = await openReady(pagePath);
    const epochs = await page.$$eval('#fold-timeline > li', (items) =>
      items.map((item) => Number(item.getAttribute('data-epoch'))),
    );
    expect(epochs.length).toBe(embeddedViewerData(readFileSync(pagePath, 'utf8')).folds.length);
    expect(new Set(epochs).size).toBeGreaterThan(1);
    expect(epochs).toEqual([...epochs].sort((a, b) => a - b));
  }, 60_000);

  it('names the y-axis unit and puts every marker, give-back included, in the legend', async () => {
    const { page } = await openReady(pagePath);
    expect(await page.$eval('#prompt-chart .y-title', (element) => element.textContent)).toMatch(/tokens/);
    const legend = await page.$eval('p.legend', (element) => element.textContent ?? '');
    for (const key of ['request', 'rewrite', 'give-back', 'commit', 'budget']) expect(legend).toContain(key);
  }, 60_000);

  it('with a budget far above every request, still draws the requests over most of the chart height', async () => {
    const { root } = await recordViewedSession(12, undefined, { providerInputBudget: 2_000_000 });
    const { page } = await openReady(await writePage(root, 'far-budget'));
    const spread = await page.$eval('#prompt-chart', (svg) => {
      const ys = [...svg.querySelectorAll('circle.point')].map((point) => Number(point.getAttribute('cy')));
      const grid = [...svg.querySelectorAll('line.grid')].map((line) => Number(line.getAttribute('y1')));
      return (Math.max(...ys) - Math.min(...ys)) / (Math.max(...grid) - Math.min(...grid));
    });
    expect(spread).toBeGreaterThan(0.4);
    expect(await page.$eval('p.legend', (element) => element.textContent ?? '')).toMatch(/budget 2,000,000.*far above/);
  }, 120_000);
});

/** The longest string anywhere in a parsed entry: the file a read returned. */
function findLongestString(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return '';
  return Object.values(value)
    .map(findLongestString)
    .reduce((longest, next) => (next.length > longest.length ? next : longest), '');
}
