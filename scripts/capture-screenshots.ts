/**
 * Screenshots of the session viewer and a lab report for the README, taken in the same
 * headless Chromium the browser tests use:
 *   npx tsx scripts/capture-screenshots.ts <viewer.html> <report.html> [out-dir]
 */
import { join, resolve } from 'node:path';
import puppeteer from 'puppeteer-core';
import { chromiumPath } from '../tests/viewer/support/headless-browser.ts';

const [viewer, report, outDirectory = 'docs/images'] = process.argv.slice(2);
if (viewer === undefined || report === undefined) {
  console.error('usage: npx tsx scripts/capture-screenshots.ts <viewer.html> <report.html> [out-dir]');
  process.exit(2);
}
const executablePath = chromiumPath();
if (executablePath === undefined)
  throw new Error('no Chromium found (apt-get install chromium, or set PI_FOLD_CHROMIUM)');
const browser = await puppeteer.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  for (const [file, name, open] of [
    [viewer, 'viewer.png', true],
    [report, 'lab-report.png', false],
  ] as const) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1400, deviceScaleFactor: 1 });
    await page.goto(`file://${resolve(file)}`, { waitUntil: 'load' });
    // The viewer with one fold open, so the picture shows its exact source.
    if (open) {
      await page.click('ul.forest ul.forest ul.forest a.fold');
      await page.evaluate('window.scrollTo(0, 0)');
    } else {
      // The report's overlaid charts, not the table above them.
      await page.evaluate("document.getElementById('overlay-prompt').previousElementSibling.scrollIntoView()");
    }
    await page.screenshot({ path: join(outDirectory, name), fullPage: false });
    console.log(`wrote ${join(outDirectory, name)}`);
  }
} finally {
  await browser.close();
}
