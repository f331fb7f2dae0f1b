import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';

const executable = chromiumPath();
const runIt = executable !== undefined || process.env.CI === 'true' ? describe : describe.skip;
const transcript = resolve(import.meta.dirname, '../../../shared/transcripts/pi-mono/large-session.jsonl');
const REQUESTS = 80;

let browser: Browser;
let reportPath: string;
let summary: { arms: { arm: string; requests?: number; rows?: unknown[] }[] };

runIt('the replay report in headless Chromium', () => {
  beforeAll(async () => {
    if (executable === undefined)
      throw new Error('no Chromium found (apt-get install chromium, or set PI_FOLD_CHROMIUM)');
    const out = mkdtempSync(join(tmpdir(), 'pi-fold-report-'));
    const lines: string[] = [];
    const code = await runCli(
      ['replay', transcript, '--arms', 'native,fold', '--max-requests', String(REQUESTS), '--out', out],
      { out: (line) => lines.push(line), error: (line) => lines.push(line) },
    );
    expect(code, lines.join('\n')).toBe(0);
    reportPath = /reports: (\S+\.html)/.exec(lines.join('\n'))![1]!;
    summary = JSON.parse(readFileSync(/(\S+summary[^\s]*\.json)/.exec(lines.join('\n'))![1]!, 'utf8'));
    browser = await launchBrowser(executable);
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('overlays both arms with one point per request, stacks their costs, renders the table, with no console error', async () => {
    const { page, errors } = await openInBrowser(browser, reportPath);
    const series = await page.$$eval('#overlay-prompt polyline.arm-series', (lines) =>
      lines.map((line) => ({
        arm: line.getAttribute('data-arm'),
        points: (line as unknown as { points: { numberOfItems: number } }).points.numberOfItems,
      })),
    );
    expect(series.map((entry) => entry.arm).sort()).toEqual(['fold', 'native']);
    for (const entry of series) {
      const perArm = await page.$eval(
        `svg.request-chart[data-arm="${entry.arm}"] polyline.prompt-size`,
        (line) => (line as unknown as { points: { numberOfItems: number } }).points.numberOfItems,
      );
      expect(entry.points).toBe(perArm);
      expect(entry.points).toBeGreaterThanOrEqual(REQUESTS);
    }
    expect(await page.$$eval('#overlay-cost polyline.arm-series', (lines) => lines.length)).toBe(2);
    expect(await page.$$eval('#cost-bars rect.cost-part[data-arm="fold"]', (rects) => rects.length)).toBeGreaterThan(0);
    expect(await page.$$eval('table.arms thead th', (cells) => cells.map((cell) => cell.textContent))).toEqual(
      expect.arrayContaining(['metric', 'native', 'fold']),
    );
    expect(summary.arms.length).toBe(2);
    expect(errors).toEqual([]);
  }, 120_000);
});
