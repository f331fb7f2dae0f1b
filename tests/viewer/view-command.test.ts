import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import type { LoopRun } from '../vercel-ai/support/run-loop.ts';
import { embeddedViewerData } from './support/page-data.ts';
import { recordViewedSession, treeDigest, VIEWED_SESSION } from './support/viewed-session.ts';

function capture() {
  const lines = { out: [] as string[], error: [] as string[] };
  return {
    lines,
    output: { out: (line: string) => lines.out.push(line), error: (line: string) => lines.error.push(line) },
  };
}

let root: string;
let run: LoopRun;

beforeAll(async () => {
  ({ root, run } = await recordViewedSession());
}, 120_000);

describe('pi-fold view', () => {
  it('writes one page with a point per request, every commit, every fold and its verified source, and leaves the store byte for byte', async () => {
    const before = treeDigest(root);
    const out = join(root, '..', `view-${Date.now()}.html`);
    const { lines, output } = capture();
    expect(await runCli(['view', root, '--out', out], output)).toBe(0);
    expect(lines.error).toEqual([]);
    expect(treeDigest(root)).toEqual(before);
    const html = readFileSync(out, 'utf8');
    const ledger = run.folding.runtime.view.ledger;
    expect((html.match(/<circle class="point/g) ?? []).length).toBe(ledger.length);
    const commits = ledger.filter((row) => row.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(0);
    expect((html.match(/<line class="commit"/g) ?? []).length).toBe(commits.length);
    for (const row of commits) expect(html).toContain(`data-request="${row.request}"`);
    const data = embeddedViewerData(html);
    const stored = readdirSync(join(root, 'sessions', VIEWED_SESSION, 'folds')).map((name) =>
      name.replace(/\.json$/, ''),
    );
    expect(data.folds.map((fold) => fold.id).sort()).toEqual(stored.sort());
    for (const fold of data.folds) {
      for (const part of fold.parts) {
        if (part.sha256 === undefined) continue;
        expect(createHash('sha256').update(data.sources[part.sha256]!, 'utf8').digest('hex')).toBe(part.sha256);
      }
    }
    // No outside script, style or font: the page works offline and cannot load anything.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|@import|url\(http/);
    expect(lines.out.join('\n')).toContain(`session ${VIEWED_SESSION}: ${ledger.length} requests`);
  });

  it('grows with the session at a fraction of its folded bytes: the sources are embedded compressed', async () => {
    const out = join(root, '..', `size-${Date.now()}.html`);
    expect(await runCli(['view', root, '--out', out], capture().output)).toBe(0);
    const html = readFileSync(out, 'utf8');
    const sourceChars = Object.values(embeddedViewerData(html).sources).reduce((sum, text) => sum + text.length, 0);
    expect(sourceChars).toBeGreaterThan(200_000);
    // The whole page, chart, lists and script included, against the folded text it lets a reader open.
    expect(Buffer.byteLength(html)).toBeLessThan(sourceChars / 2);
  });

  it('refuses a session the store does not hold, naming the ones it does, and writes no page', async () => {
    const out = join(root, '..', `missing-${Date.now()}.html`);
    const { lines, output } = capture();
    expect(await runCli(['view', root, '--session', 'no-such-session', '--out', out], output)).toBe(1);
    expect(lines.error.join('\n')).toMatch(
      new RegExp(`has no session "no-such-session" \\(sessions: ${VIEWED_SESSION}\\)`),
    );
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a damaged blob by name instead of showing unverified bytes', async () => {
    const { root: damaged, run: damagedRun } = await recordViewedSession(30);
    const record = JSON.parse(
      readFileSync(
        join(
          damaged,
          'sessions',
          VIEWED_SESSION,
          'folds',
          readdirSync(join(damaged, 'sessions', VIEWED_SESSION, 'folds'))[0]!,
        ),
        'utf8',
      ),
    );
    const entry = (record.body?.parts ?? record.parts).find((part: { kind: string }) => part.kind === 'entry');
    const blob = join(damaged, 'blobs', 'sha256', entry.sha256.slice(0, 2), entry.sha256);
    chmodSync(blob, 0o644);
    const bytes = readFileSync(blob);
    bytes[10] = bytes[10]! ^ 1;
    writeFileSync(blob, bytes);
    const out = join(damaged, '..', `damaged-${Date.now()}.html`);
    const { lines, output } = capture();
    expect(await runCli(['view', damaged, '--out', out], output)).toBe(1);
    expect(lines.error.join('\n')).toMatch(/STORE\.HASH_MISMATCH/);
    expect(existsSync(out)).toBe(false);
    expect(damagedRun.folding.runtime.view.ledger.length).toBeGreaterThan(0);
  }, 120_000);

  it('refuses a target that is not a store, and a misspelt option', async () => {
    const { lines, output } = capture();
    expect(await runCli(['view', join(root, 'sessions')], output)).toBe(2);
    expect(lines.error.join('\n')).toMatch(/cannot open/);
    expect(await runCli(['view', root, '--sesion', VIEWED_SESSION], output)).toBe(2);
    expect(lines.error.join('\n')).toMatch(/unknown option --sesion/);
  });
});
