import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProgressBar, writeLabReports } from '../../lab/report/index.ts';
import type { ArmResult } from '../../lab/report/lab-records.ts';
import { growingArm, labRun } from './support/lab-run-fixture.ts';

function withHookTimes(arm: ArmResult, hookMs: (index: number) => number): ArmResult {
  return { ...arm, rows: arm.rows.map((row) => ({ ...row, hookMs: hookMs(row.index) })) };
}

describe('report files', () => {
  const arms = [
    growingArm('unmanaged', 40, 20_000, 9_000),
    growingArm('native', 35, 20_000, 7_000, { compactions: 1 }),
    growingArm('fold', 30, 20_000, 4_000, { foldEvents: 4 }),
  ];

  it('CSV has one line per request; the summary bytes are stable when only timings change', async () => {
    const first = await writeLabReports(labRun(arms), mkdtempSync(join(tmpdir(), 'lab-report-')), {
      notes: ['3 malformed lines skipped'],
      measurements: { 'peak rss MB': 123 },
    });
    const retimed = arms.map((arm) => withHookTimes(arm, (index) => index * 3.7 + 1));
    const second = await writeLabReports(labRun(retimed), mkdtempSync(join(tmpdir(), 'lab-report-')), {
      notes: ['3 malformed lines skipped'],
      measurements: { 'peak rss MB': 456 },
    });

    const csvLines = readFileSync(first.csv, 'utf8').trimEnd().split('\n');
    expect(csvLines.length - 1).toBe(40 + 35 + 30);
    expect(csvLines[0]).toMatch(/^arm,index,/);
    expect(csvLines.filter((line) => line.startsWith('fold,')).length).toBe(30);

    const summaryBytes = readFileSync(first.summary);
    expect(readFileSync(second.summary).equals(summaryBytes)).toBe(true);
    expect(summaryBytes.toString()).not.toMatch(/hook|rss/i);
    expect(readFileSync(first.timings, 'utf8')).not.toBe(readFileSync(second.timings, 'utf8'));
    expect(JSON.parse(readFileSync(second.timings, 'utf8')).measurements['peak rss MB']).toBe(456);

    // A different run gives different summary bytes: the stability is not a constant file.
    const other = await writeLabReports(labRun(arms.slice(1)), mkdtempSync(join(tmpdir(), 'lab-report-')));
    expect(readFileSync(other.summary).equals(summaryBytes)).toBe(false);
  });

  it('the HTML report is self-contained, with one chart per arm carrying the budget line and the price boundary', async () => {
    const paths = await writeLabReports(labRun(arms), mkdtempSync(join(tmpdir(), 'lab-report-')), {
      title: 'fixture <run>',
    });
    const html = readFileSync(paths.html, 'utf8');
    const charts = html.split('<svg class="request-chart"').slice(1);
    expect(charts.length).toBe(arms.length);
    for (const [position, chart] of charts.entries()) {
      expect(chart).toContain(`data-arm="${arms[position]!.arm}"`);
      expect(chart).toMatch(/<line class="budget-line"/);
      expect(chart).toMatch(/<line class="price-boundary"/);
      const points = /<polyline class="prompt-size" points="([^"]*)"/.exec(chart)![1]!.split(' ');
      expect(points.length).toBe(arms[position]!.rows.length);
    }
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    expect(html).toContain('fixture &#60;run&#62;');
    expect(html).toContain('total tokens');
  });

  it("overlays every arm on one prompt chart and one cumulative-dollar chart, stacks each arm's cost by part, and shows the table as a table", async () => {
    const paths = await writeLabReports(labRun(arms), mkdtempSync(join(tmpdir(), 'lab-report-')));
    const html = readFileSync(paths.html, 'utf8');
    const overlay = (id: string) => html.split(`id="${id}"`)[1]!.split('</svg>')[0]!;
    for (const id of ['overlay-prompt', 'overlay-cost']) {
      const chart = overlay(id);
      for (const arm of arms) {
        const points = new RegExp(`<polyline class="arm-series" data-arm="${arm.arm}"[^>]* points="([^"]*)"`)
          .exec(chart)![1]!
          .trim()
          .split(' ');
        expect(points.length, `${id} ${arm.arm}`).toBe(arm.rows.length);
      }
    }
    expect(overlay('overlay-prompt')).toMatch(/<line class="budget-line"/);
    const bars = overlay('cost-bars');
    for (const arm of arms) {
      const titles = [
        ...bars.matchAll(new RegExp(`data-arm="${arm.arm}"[^>]*><title>[^<]*\\$([\\d.]+)</title>`, 'g')),
      ].map((match) => Number(match[1]));
      const cost = arm.rows.reduce((sum, row) => sum + row.costUsd, 0);
      expect(titles.reduce((sum, value) => sum + value, 0)).toBeCloseTo(cost, 1);
    }
    const table = html.split('<table class="arms">')[1]!.split('</table>')[0]!;
    for (const arm of arms) expect(table).toContain(`<th>${arm.arm}</th>`);
    expect(table).toContain('<td>total tokens</td>');
  });
});

describe('progress bar', () => {
  it('prints sparse plain lines when stderr is not a terminal', () => {
    const written: string[] = [];
    const bar = createProgressBar('replay', 100, { write: (text: string) => written.push(text), isTTY: false });
    for (let step = 0; step < 100; step += 1) bar.tick(1, `request ${step}`);
    bar.done();
    expect(written.length).toBe(10);
    expect(written.every((line) => line.endsWith('\n') && !line.includes('\r'))).toBe(true);
    expect(written.at(-1)).toMatch(/100\/100 100% request 99 done/);
  });

  it('redraws one line in place on a terminal', () => {
    const written: string[] = [];
    const bar = createProgressBar('replay', 4, { write: (text: string) => written.push(text), isTTY: true });
    bar.tick();
    bar.tick(3);
    bar.done();
    expect(written.length).toBe(3);
    expect(written.slice(0, 2).every((line) => line.startsWith('\r') && !line.endsWith('\n'))).toBe(true);
    expect(written[2]).toMatch(/\[#{24}\] 4\/4 100%\n$/);
  });
});
