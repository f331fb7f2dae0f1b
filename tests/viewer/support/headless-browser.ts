import { existsSync } from 'node:fs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/** Debian's Chromium (installed by .ci/run), or one named by PI_FOLD_CHROMIUM. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.PI_FOLD_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(
    (path): path is string => path !== undefined && path.length > 0,
  );
  return candidates.find((path) => existsSync(path));
}

/** A page opened from a file, with every console error and uncaught page error collected. */
export async function openInBrowser(browser: Browser, file: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${(error as Error).message}`));
  page.on('requestfailed', (request) => errors.push(`request failed: ${request.url()}`));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return { page, errors };
}

export async function launchBrowser(executablePath: string): Promise<Browser> {
  // Root in CI has no user namespace sandbox; the pages are our own files.
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}
