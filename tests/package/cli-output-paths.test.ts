import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { createFoldRuntime } from '../../composition/index.ts';

/**
 * Where `view` and `replay` write, and what `replay` is given to replay, are checked before
 * any work: a bad `--out` is OUTPUT.INVALID (exit 2, nothing written) before the store is read
 * or the transcript loaded, and a session with no model response is refused instead of
 * reported as a table of zeros.
 */
const directory = mkdtempSync(join(tmpdir(), 'pi-fold-output-paths-'));
const aFile = join(directory, 'a-file');
writeFileSync(aFile, 'not a folder');
const storeRoot = join(directory, 'store');

async function cli(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(argumentsList, { out: (line) => out.push(line), error: (line) => error.push(line) });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

function expectOutputRefused(result: { code: number; out: string; error: string }, path: string): void {
  expect(result.code, result.error).toBe(2);
  expect(result.error).toContain('OUTPUT.INVALID: --out ');
  expect(result.error).toContain(path);
  expect(result.error).toContain('nothing was written');
  expect(result.error).not.toMatch(/EISDIR|ENOENT|ENOTDIR|\n\s+at /);
  expect(result.out).toBe('');
}

beforeAll(async () => {
  const composed = await createFoldRuntime({ sessionId: 'one', store: 'fs', storeRoot });
  await composed.runtime.project([{ id: 'u1', role: 'user', text: 'hi', bytes: '{"role":"user","content":"hi"}' }], {
    contextWindow: 200_000,
  });
  await composed.dispose();
});

describe('pi-fold view --out', () => {
  it('a directory is refused by name, exit 2', async () => {
    expectOutputRefused(await cli(['view', storeRoot, '--out', directory]), directory);
  });

  it('a file in a folder that does not exist is refused, exit 2', async () => {
    const path = join(directory, 'no-such-folder', 'page.html');
    expectOutputRefused(await cli(['view', storeRoot, '--out', path]), path);
  });

  it('a file below a file is refused, exit 2', async () => {
    const path = join(aFile, 'page.html');
    expectOutputRefused(await cli(['view', storeRoot, '--out', path]), path);
  });

  it('a good path is written', async () => {
    const path = join(directory, 'page.html');
    const result = await cli(['view', storeRoot, '--out', path]);
    expect(result.code, result.error).toBe(0);
    expect(readdirSync(directory)).toContain('page.html');
  });
});

describe('pi-fold replay', () => {
  it('an --out that is a file is refused before the transcript is even read', async () => {
    const result = await cli(['replay', join(directory, 'absent.jsonl'), '--out', aFile]);
    expectOutputRefused(result, aFile);
    expect(result.error).not.toContain('TRANSCRIPT.NOT_FOUND');
  });

  it('a session the model never answered is TRANSCRIPT.NO_RESPONSES (exit 2), not a table of zeros', async () => {
    const session = join(directory, 'unanswered.jsonl');
    const header = { type: 'session', version: 3, id: 's', timestamp: '2026-01-01T00:00:00Z', cwd: '/' };
    const question = {
      type: 'message',
      id: 'm1',
      parentId: null,
      timestamp: '2026-01-01T00:00:01Z',
      message: { role: 'user', content: [{ type: 'text', text: 'hello' }], timestamp: 1_767_225_601_000 },
    };
    writeFileSync(session, `${JSON.stringify(header)}\n${JSON.stringify(question)}\n`);
    const result = await cli(['replay', session, '--arms', 'native,fold']);
    expect(result.code, result.error).toBe(2);
    expect(result.error).toContain('TRANSCRIPT.NO_RESPONSES');
    expect(result.error).toContain('1 entry, none answered by a model');
    expect(result.out).toBe('');
  }, 120_000);
});
