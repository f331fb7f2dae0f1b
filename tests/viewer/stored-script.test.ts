import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderViewerPage } from '../../application/viewer/render-viewer-page.ts';
import { VIEWER_SCRIPT } from '../../application/viewer/viewer-script.ts';
import type { ViewerSession } from '../../application/viewer/viewer-session.ts';
import { chromiumPath, launchBrowser, openInBrowser } from './support/headless-browser.ts';

const executable = chromiumPath();
const runInBrowser = executable !== undefined || process.env.CI === 'true' ? it : it.skip;

/** Markup that runs script wherever it lands unescaped: in text, and in a double-quoted attribute. */
const PAYLOAD = '"><img src=x onerror="window.__ran=(window.__ran||0)+1">';

/**
 * A session as a tampered store hands it over: a request-log row and a commit row whose
 * numbers are markup (the log has no checksum), and a fold record re-hashed around markup in
 * `kind`, `epoch` and its counts. The types say number; a shared store does not promise it.
 */
function tamperedSession(): ViewerSession {
  const hostile = PAYLOAD as unknown as number;
  return {
    sessionId: 's1',
    storeName: 'fs',
    requests: [
      {
        schemaVersion: 1,
        kind: 'request',
        request: 1,
        estimatedTokens: 1_000,
        budgetTokens: 10_000,
        causes: [],
        foldsLanded: 0,
        totalChars: 4_000,
        divergenceIndex: 0,
      },
      {
        schemaVersion: 1,
        kind: 'request',
        request: hostile,
        estimatedTokens: hostile,
        budgetTokens: 10_000,
        causes: [PAYLOAD as never],
        foldsLanded: 0,
        totalChars: 4_000,
        divergenceIndex: 0,
        providerCacheRead: hostile,
      },
    ] as ViewerSession['requests'],
    commits: [
      {
        schemaVersion: 1,
        kind: 'commit',
        request: hostile,
        epoch: hostile,
        causes: ['commit'],
        foldsLanded: hostile,
        estimatedTokensBefore: 2_000,
        estimatedTokensAfter: 1_000,
        prefixTokensRewritten: hostile,
        providerCacheRead: hostile,
      },
    ],
    folds: [
      {
        id: PAYLOAD,
        kind: PAYLOAD as never,
        origin: PAYLOAD as never,
        provenance: 'supplied',
        brief: PAYLOAD,
        epoch: hostile,
        entryCount: hostile,
        sourceChars: hostile,
        sourceSha256: 'a'.repeat(64),
        parentId: null,
        parts: [],
      },
    ],
    sources: {},
    spills: [
      {
        id: PAYLOAD,
        entryId: PAYLOAD,
        sha256: PAYLOAD,
        bytes: hostile,
        headBytes: hostile,
        tailBytes: hostile,
        request: hostile,
        foldId: PAYLOAD,
      },
    ],
    notes: [PAYLOAD],
  } as ViewerSession;
}

describe('the viewer page runs no stored script', () => {
  it('escapes every field read from the store, and allows only its own script by hash', () => {
    const page = renderViewerPage(tamperedSession());
    expect(page).not.toContain('<img');
    expect(page).not.toMatch(/onerror="/);
    const policy = /Content-Security-Policy" content="([^"]*)"/.exec(page)![1]!;
    const scriptSource = /script-src ([^;]*)/.exec(policy)![1]!;
    expect(scriptSource).not.toContain('unsafe-inline');
    const hash = createHash('sha256').update(VIEWER_SCRIPT, 'utf8').digest('base64');
    expect(scriptSource).toBe(`'sha256-${hash}'`);
    // The only executable script is the viewer's own, byte for byte.
    const scripts = [...page.matchAll(/<script(?![^>]*application\/json)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
    expect(scripts).toEqual([VIEWER_SCRIPT]);
  });

  runInBrowser(
    'in Chromium the tampered page runs nothing of the store, and its own script still runs',
    async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'pi-fold-stored-script-')), 'view.html');
      writeFileSync(file, renderViewerPage(tamperedSession()));
      const browser = await launchBrowser(executable!);
      try {
        const { page } = await openInBrowser(browser, file);
        let dialogs = 0;
        page.on('dialog', async (dialog) => {
          dialogs += 1;
          await dialog.dismiss();
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(await page.evaluate('window.__ran ?? 0')).toBe(0);
        expect(dialogs).toBe(0);
        // The viewer's own script answers a search: it was allowed to run under the policy.
        await page.type('#search-pattern', 'anything');
        await page.click('#search-form button[type="submit"]');
        await page.waitForFunction("document.querySelector('#search-results').textContent.length > 0", {
          timeout: 10_000,
        });
      } finally {
        await browser.close();
      }
    },
    60_000,
  );
});
