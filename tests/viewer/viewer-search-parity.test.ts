import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { FoldError } from '../../core/fold-error.ts';
import { compileSearch } from '../../core/search/search-pattern.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';
import { recordViewedSession } from './support/viewed-session.ts';

const executable = chromiumPath();
const runIt = executable !== undefined || process.env.CI === 'true' ? describe : describe.skip;

/**
 * Patterns on both sides of every rule of the agent's regex search: back-references (numbered
 * and named, and an octal escape that only looks like one), look-around, counted repetition
 * near the linear engine's replication limit (nested too), empty matches, invalid syntax.
 */
const PATTERNS = [
  'a(b)\\1',
  '(?<x>a)\\k<x>',
  'a\\2',
  '\\0x',
  '[\\1]x',
  'a(?=b)',
  'a(?!b)',
  '(?<=a)b',
  '(?<!a)b',
  'a{16}',
  'a{17}',
  'a{1,16}',
  'a{1,17}',
  'a{15,}',
  'a{16,}',
  '(ab){16}',
  '(a{4}){4}',
  '(a{4}){5}',
  '(?:x{2}){8}y',
  '((a+)+)+',
  '((((a+)+)+)+)+',
  'a+?b',
  '[a-z]+x',
  '\\bword\\b',
  '(a|b)*c',
  '.{1,200}x',
  'x*',
  'a?',
  '(',
  'foo\\',
  'module_\\d+\\.ts',
  'a{,5}',
];

type Verdict = 'ok' | 'invalid' | 'unsafe';

function agentVerdict(pattern: string, ignoreCase: boolean): Verdict {
  try {
    compileSearch({ pattern, regex: true, ignoreCase });
    return 'ok';
  } catch (error) {
    if (!FoldError.isInstance(error)) throw error;
    return error.code === 'ACTION.INVALID_ARGUMENT' ? 'invalid' : 'unsafe';
  }
}

async function pageVerdict(page: Page, pattern: string, ignoreCase: boolean): Promise<string | null> {
  // As a user would: the pattern typed, the regex box ticked, ignore case as asked, the form sent.
  await page.evaluate(`(() => {
    document.getElementById('search-pattern').value = ${JSON.stringify(pattern)};
    document.getElementById('search-regex').checked = true;
    document.getElementById('search-case').checked = ${ignoreCase};
    document.getElementById('search-results').removeAttribute('data-verdict');
    document.getElementById('search-form').requestSubmit();
  })()`);
  await page.waitForSelector('#search-results[data-verdict]', { timeout: 5_000 });
  return page.$eval('#search-results', (element) => element.getAttribute('data-verdict'));
}

let browser: Browser;
let pagePath: string;

runIt("the viewer's regex search refuses exactly what the agent's search refuses", () => {
  beforeAll(async () => {
    const { root } = await recordViewedSession(12);
    pagePath = `${root}-search.html`;
    expect(await runCli(['view', root, '--out', pagePath], { out: () => undefined, error: () => undefined })).toBe(0);
    browser = await launchBrowser(executable!);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('gives every pattern, with and without ignore case, the verdict compileSearch gives it', async () => {
    const { page, errors } = await openInBrowser(browser, pagePath);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 10_000 });
    const mismatches: string[] = [];
    for (const ignoreCase of [false, true]) {
      for (const pattern of PATTERNS) {
        const expected = agentVerdict(pattern, ignoreCase);
        const shown = await pageVerdict(page, pattern, ignoreCase);
        if (shown !== expected)
          mismatches.push(`${pattern}${ignoreCase ? ' (ignore case)' : ''}: agent ${expected}, page ${shown}`);
      }
    }
    expect(mismatches).toEqual([]);
    // Both verdicts occur, so the comparison is not trivially one-sided.
    expect(new Set(PATTERNS.map((pattern) => agentVerdict(pattern, false)))).toEqual(
      new Set(['ok', 'invalid', 'unsafe']),
    );
    expect(errors).toEqual([]);
  }, 120_000);
});
