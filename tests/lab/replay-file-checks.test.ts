import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { readJsonLines } from '../../lab/transcripts/jsonl-lines.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { MAX_TRANSCRIPT_LINE_BYTES } from '../../lab/transcripts/transcript-file.ts';

/**
 * What `pi-fold replay` is given is the user's input: a directory, a missing file, a pipe, an
 * empty or foreign file, a line too long to read. Each is refused with a code that says what
 * is wrong (exit 2), never a stack; an error nothing expected is one line (exit 1).
 */
const fixtures = resolve(import.meta.dirname, 'fixtures');
const directory = mkdtempSync(join(tmpdir(), 'replay-file-checks-'));

async function replayCli(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(['replay', ...argumentsList], {
    out: (line) => out.push(line),
    error: (line) => error.push(line),
  });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

/** A refusal as a user meets it: exit 2, one line naming the code and the path, no stack frame. */
function expectRefusal(result: { code: number; error: string }, code: string, path: string): void {
  expect(result.code, result.error).toBe(2);
  expect(result.error).toContain(`pi-fold replay: ${code}: `);
  expect(result.error).toContain(path);
  expect(result.error).not.toMatch(/\n\s+at /);
}

describe('replay refuses a file it cannot replay, saying why', () => {
  it('a directory is TRANSCRIPT.IS_DIRECTORY', async () => {
    expectRefusal(await replayCli([directory]), 'TRANSCRIPT.IS_DIRECTORY', directory);
  });

  it('a missing file is TRANSCRIPT.NOT_FOUND, and so is a path through a file', async () => {
    const missing = join(directory, 'absent.jsonl');
    expectRefusal(await replayCli([missing]), 'TRANSCRIPT.NOT_FOUND', missing);
    const file = join(directory, 'plain.txt');
    writeFileSync(file, 'text');
    expectRefusal(await replayCli([join(file, 'inside.jsonl')]), 'TRANSCRIPT.NOT_FOUND', file);
  });

  it('a pipe is TRANSCRIPT.UNREADABLE (not a regular file), and nothing waits on it', async () => {
    const pipe = join(directory, 'session.fifo');
    execFileSync('mkfifo', [pipe]);
    expectRefusal(await replayCli([pipe]), 'TRANSCRIPT.UNREADABLE', pipe);
  });

  it('an empty file and a file of another format are TRANSCRIPT.NOT_A_SESSION', async () => {
    const empty = join(directory, 'empty.jsonl');
    writeFileSync(empty, '');
    expectRefusal(await replayCli([empty]), 'TRANSCRIPT.NOT_A_SESSION', empty);
    const notes = join(directory, 'notes.jsonl');
    writeFileSync(notes, '{"kind":"note"}\n');
    expectRefusal(await replayCli([notes]), 'TRANSCRIPT.NOT_A_SESSION', notes);
    const manifest = join(directory, 'package.json');
    writeFileSync(manifest, '{\n  "name": "x"\n}\n');
    expectRefusal(await replayCli([manifest]), 'TRANSCRIPT.NOT_A_SESSION', manifest);
  });
});

describe('a line too long to read', () => {
  const session = (lineBytes: number): string => {
    const path = join(directory, `long-${lineBytes}.jsonl`);
    const header = JSON.stringify({
      type: 'session',
      version: 3,
      id: 's',
      timestamp: '2026-01-01T00:00:00Z',
      cwd: '/',
    });
    const long = JSON.stringify({ type: 'custom', data: 'x'.repeat(lineBytes) });
    writeFileSync(path, `${header}\n${long}\n${header}\n`);
    return path;
  };

  it('is refused as TRANSCRIPT.LINE_TOO_LONG with its line number, whichever chunk it spans', async () => {
    // The limit is V8's longest string by default; a small one stands in for it here.
    const path = session(200_000);
    await expect(loadTranscript(path, { maxLineBytes: 100_000 })).rejects.toMatchObject({
      code: 'TRANSCRIPT.LINE_TOO_LONG',
      details: { line: 2, maxLineBytes: 100_000 },
    });
    const lines = async (maxLineBytes: number) => {
      const read: number[] = [];
      for await (const line of readJsonLines(path, { maxLineBytes })) read.push(line.line);
      return read;
    };
    await expect(lines(1_000)).rejects.toMatchObject({ code: 'TRANSCRIPT.LINE_TOO_LONG' });
    // At the limit the same file reads whole, every line in order.
    expect(await lines(200_100)).toEqual([1, 2, 3]);
  });

  it('defaults to the longest string V8 can hold', async () => {
    const { constants } = await import('node:buffer');
    expect(MAX_TRANSCRIPT_LINE_BYTES).toBe(constants.MAX_STRING_LENGTH);
  });
});

describe('an error no command expected', () => {
  const debug = process.env.PI_FOLD_DEBUG;
  afterEach(() => {
    if (debug === undefined) delete process.env.PI_FOLD_DEBUG;
    else process.env.PI_FOLD_DEBUG = debug;
  });

  it('is one line with its code and exit 1; PI_FOLD_DEBUG=1 adds the stack', { timeout: 60_000 }, async () => {
    // --out is a folder (so it passes the check up front) where each report's name is taken by
    // a folder: writing the reports fails after the replay ran, as nothing expects.
    const outFolder = join(directory, 'out-is-blocked');
    for (const name of ['summary.json', 'requests.csv', 'timings.json', 'cost-split.csv', 'report.html'])
      mkdirSync(join(outFolder, `replay-${name}`), { recursive: true });
    const argumentsList = [join(fixtures, 'codex-legacy-rollout.jsonl'), '--arms', 'unmanaged', '--out', outFolder];
    delete process.env.PI_FOLD_DEBUG;
    const plain = await replayCli(argumentsList);
    expect(plain.code).toBe(1);
    expect(plain.error).toMatch(/^pi-fold replay: E[A-Z]+: .*out-is-blocked.* \(PI_FOLD_DEBUG=1 prints the stack\)$/);
    process.env.PI_FOLD_DEBUG = '1';
    const debugged = await replayCli(argumentsList);
    expect(debugged.code).toBe(1);
    expect(debugged.error.split('\n')[0]).toMatch(/^pi-fold replay: E[A-Z]+: /);
    expect(debugged.error).toMatch(/\n\s+at /);
  });
});
