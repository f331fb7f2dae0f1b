import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';
import { clippedAt } from './support/narrow-window.ts';

const executable = chromiumPath();
const runIt = executable !== undefined || process.env.CI === 'true' ? describe : describe.skip;
const transcript = resolve(import.meta.dirname, '../fixtures/transcripts/pi-mono/large-session.jsonl');
const REQUESTS = 80;

let browser: Browser;
let reportPath: string;
let out: string;
let summary: {
  arms: { arm: string; requests?: number; rows?: unknown[] }[];
  settings: { prices?: { longContext?: { aboveTokens: number } } };
};

/** Where an element sits on the page, in CSS pixels from the top of the document. */
const topOf = (page: Page, selector: string) =>
  page.$eval(
    selector,
    (element) => element.getBoundingClientRect().top + (globalThis as unknown as { scrollY: number }).scrollY,
  );

runIt('the replay report in headless Chromium', () => {
  beforeAll(async () => {
    if (executable === undefined)
      throw new Error('no Chromium found (apt-get install chromium, or set PI_FOLD_CHROMIUM)');
    out = mkdtempSync(join(tmpdir(), 'pi-fold-report-'));
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

  it('at 800 px wide every chart label stays inside its chart and the page needs no sideways scroll', async () => {
    const { page } = await openInBrowser(browser, reportPath);
    const clipped = await clippedAt(page, 800);
    expect(clipped.labels).toEqual([]);
    expect(clipped.documentWidth).toBeLessThanOrEqual(800);
  }, 60_000);

  it('leads with one sentence, then cost beside needs lost, before any note or other table', async () => {
    const { page } = await openInBrowser(browser, reportPath);
    const headline = await page.$eval('#headline', (element) => element.textContent ?? '');
    expect(headline).toMatch(/^fold cost \$\d+\.\d\d against native's \$\d+\.\d\d \(\d\.\d\d×\), lost 0 bytes/);
    const lossTop = await topOf(page, '#cost-and-loss');
    expect(lossTop).toBeLessThan(400);
    expect(await topOf(page, '#headline')).toBeLessThan(lossTop);
    const lossChartTop = await topOf(page, 'svg.cost-loss-chart');
    const promptChartTop = await topOf(page, '#overlay-prompt');
    expect(lossChartTop).toBeLessThan(promptChartTop);
    expect(promptChartTop).toBeLessThan(await topOf(page, 'table.arms'));
    expect(promptChartTop).toBeLessThan(await topOf(page, 'ul.notes'));
  }, 60_000);

  it('draws the headline chart legibly: legend, one colour per arm everywhere, round ticks, the price line, commit marks, x labels', async () => {
    const { page } = await openInBrowser(browser, reportPath);
    const legend = await page.$eval('ul.chart-legend[data-chart="overlay-prompt"]', (list) => list.textContent ?? '');
    for (const key of ['native', 'fold', 'budget 183,616', 'fold commit']) expect(legend).toContain(key);
    // The recorded model's catalog entry decides whether a long-context price line exists.
    const boundary = summary.settings.prices?.longContext?.aboveTokens;
    if (boundary === undefined) expect(legend).not.toContain('long-context price line');
    else expect(legend).toContain(`long-context price line ${boundary.toLocaleString('en-US')}`);
    for (const arm of ['fold', 'native']) {
      const overlay = await page.$eval(`#overlay-prompt polyline[data-arm="${arm}"]`, (line) =>
        line.getAttribute('stroke'),
      );
      const own = await page.$eval(`svg.request-chart[data-arm="${arm}"] polyline.prompt-size`, (line) =>
        line.getAttribute('stroke'),
      );
      expect(own).toBe(overlay);
    }
    expect(await page.$$eval('#overlay-prompt line.price-boundary', (lines) => lines.length)).toBe(
      boundary === undefined ? 0 : 1,
    );
    const ticks = await page.$$eval('#overlay-prompt text.y-tick', (labels) =>
      labels.map((label) => label.textContent),
    );
    const values = ticks.map((label) => Number.parseFloat(label!) * (label!.endsWith('k') ? 1_000 : 1));
    const step = values[1]! - values[0]!;
    const mantissa = step / 10 ** Math.floor(Math.log10(step));
    expect([1, 2, 2.5, 5]).toContain(mantissa);
    for (const [index, value] of values.entries()) expect(value).toBeCloseTo(index * step);
    expect(
      await page.$$eval('#overlay-prompt line.commit-marker[data-arm="fold"]', (lines) => lines.length),
    ).toBeGreaterThan(0);
    expect(await page.$$eval('#overlay-prompt text.x-tick', (labels) => labels.length)).toBeGreaterThan(2);
  }, 60_000);

  it('indents the sub-rows of the table, and says why the recorded cost differs from native', async () => {
    const { page } = await openInBrowser(browser, reportPath);
    const indents = await page.$$eval('table.arms tbody tr td:first-child', (cells) =>
      cells.map((cell) => ({
        label: cell.textContent,
        inset:
          cell.getBoundingClientRect().left +
          Number.parseFloat(
            (globalThis as unknown as { getComputedStyle(cell: unknown): { paddingLeft: string } }).getComputedStyle(
              cell,
            ).paddingLeft,
          ),
      })),
    );
    const outputs = indents.filter((cell) => cell.label === 'output');
    // "output" tokens (a top-level row) and "output" dollars (a part of cost) must not read alike.
    expect(outputs.length).toBe(2);
    expect(outputs[1]!.inset).toBeGreaterThan(outputs[0]!.inset + 10);
    const explanation = await page.$eval('#recorded-vs-native', (element) => element.textContent ?? '');
    expect(explanation).toMatch(/^Recorded \$[\d,]+\.\d\d, native \$\d+\.\d\d\./);
    expect(explanation).toMatch(/counted the same way/);
  }, 60_000);

  it("keeps the fold arm's store under --out and links its viewer page, which lists the spill", async () => {
    const { page } = await openInBrowser(browser, reportPath);
    const href = await page.$eval('a.viewer-link[data-arm="fold"]', (link) => link.getAttribute('href'));
    expect(existsSync(join(out, 'replay-fold-stores', 'fold', 'sessions'))).toBe(true);
    const viewer = join(dirname(reportPath), href!);
    const opened = await openInBrowser(browser, viewer);
    await opened.page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    expect(await opened.page.$$eval('#fold-timeline > li', (items) => items.length)).toBeGreaterThan(0);
    expect(await opened.page.$$eval('#spills tr.spill', (rows) => rows.length)).toBeGreaterThan(0);
    expect(await opened.page.$$eval('#prompt-chart circle.point', (points) => points.length)).toBeGreaterThanOrEqual(
      REQUESTS,
    );
    expect(opened.errors).toEqual([]);
  }, 60_000);

  it("plots native's agent requests only: its summary calls are not points that drop the line to zero", async () => {
    const compacting = mkdtempSync(join(tmpdir(), 'pi-fold-report-compacting-'));
    const lines: string[] = [];
    // A small window makes Pi's own compaction run, with its summary calls.
    const code = await runCli(
      [
        'replay',
        transcript,
        '--arms',
        'native',
        '--max-requests',
        String(REQUESTS),
        '--budget',
        '30000',
        '--cap',
        '40000',
        '--out',
        compacting,
      ],
      { out: (line) => lines.push(line), error: (line) => lines.push(line) },
    );
    expect(code, lines.join('\n')).toBe(0);
    const summaryCalls = Number(/of which summary calls\s+(\d+)/.exec(lines.join('\n'))![1]);
    const billedCalls = Number(/billed calls\s+(\d+)/.exec(lines.join('\n'))![1]);
    expect(summaryCalls).toBeGreaterThan(0);
    const { page } = await openInBrowser(browser, join(compacting, 'replay-report.html'));
    const native = await page.$eval('#overlay-prompt polyline[data-arm="native"]', (line) => {
      const list = (line as unknown as { points: { numberOfItems: number; getItem(i: number): { y: number } } }).points;
      return Array.from({ length: list.numberOfItems }, (_, index) => list.getItem(index).y);
    });
    // Agent requests (a refused one retried included), never the summary calls.
    expect(native.length).toBeGreaterThanOrEqual(billedCalls - summaryCalls);
    expect(native.length).toBeLessThan(billedCalls);
    const floor = await page.$eval(
      '#overlay-prompt rect.plot',
      (rect) => Number(rect.getAttribute('y')) + Number(rect.getAttribute('height')),
    );
    // After the first few requests every point stands clear of the zero line.
    for (const y of native.slice(10)) expect(floor - y).toBeGreaterThan(10);
    expect(await page.$$eval('#overlay-prompt line.compaction-marker', (marks) => marks.length)).toBeGreaterThan(0);
  }, 300_000);
});
