import { randomBytes } from 'node:crypto';
import { mkdir, readdir, stat, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import Keyv from 'keyv';
import { afterAll, describe, expect, test } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { DEFAULT_EVIDENCE_CAP_BYTES } from '../../adapters/backends/storage-shared/blob-checks.ts';
import { HOSTILE_IDS, sampleEngineState, sampleFoldRecord } from '../../testing/index.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('fs-safety');
afterAll(() => removeScratch(scratch), 120_000);

async function listTree(directory: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(directory, { withFileTypes: true, recursive: true }))
    found.push(relative(directory, join(entry.parentPath, entry.name)));
  return found.sort();
}

describe('filesystem layout and permissions', () => {
  test('blobs live at blobs/sha256/ab/<sha>, immutable files are 0444, state is JSON with schemaVersion', async () => {
    const root = join(scratch, 'layout');
    const store = new FsFoldStore({ root });
    const sha = await store.putBlob('hello');
    const blobPath = join(root, 'blobs', 'sha256', sha.slice(0, 2), sha);
    expect((await stat(blobPath)).mode & 0o777).toBe(0o444);
    const record = sampleFoldRecord();
    await store.putFold('session-1', record);
    expect((await stat(join(root, 'sessions', 'session-1', 'folds', `${record.id}.json`))).mode & 0o777).toBe(0o444);
    await store.saveState('session-1', sampleEngineState('session-1'));
    const state = JSON.parse(
      await (await import('node:fs/promises')).readFile(join(root, 'sessions', 'session-1', 'state.json'), 'utf8'),
    );
    expect(state).toMatchObject({
      envelopeVersion: 1,
      kind: 'state',
      sessionId: 'session-1',
      body: { schemaVersion: 1 },
    });
    const evidence = await new FsEvidenceStore({ root }).put('session-1', randomBytes(64));
    expect((await stat(join(root, 'evidence', 'session-1', evidence.sha256))).mode & 0o777).toBe(0o444);
    expect(evidence.uri).toBe(`file://${join(root, 'evidence', 'session-1', evidence.sha256)}`);
  });

  test('the default evidence cap is 512 MiB and the refusal names the session and the cap', async () => {
    expect(new FsEvidenceStore({ root: join(scratch, 'cap-default') }).capBytes).toBe(DEFAULT_EVIDENCE_CAP_BYTES);
    expect(DEFAULT_EVIDENCE_CAP_BYTES).toBe(512 * 1024 * 1024);
    const store = new FsEvidenceStore({ root: join(scratch, 'cap'), capBytes: 1_000 });
    await store.put('capped', randomBytes(600));
    await expect(store.put('capped', randomBytes(401))).rejects.toMatchObject({
      code: 'STORE.CAP_REACHED',
      message: expect.stringMatching(/capped.*600.*401.*1000/),
    });
    expect(() => new FsEvidenceStore({ root: scratch, capBytes: 0 })).toThrow(/SETTINGS.INVALID/);
  });
});

describe('nothing is written outside the root', () => {
  test('a full workload plus every hostile id leaves only files under the root', async () => {
    const parent = join(scratch, 'sandbox');
    await mkdir(parent);
    const root = join(parent, 'store');
    const store = new FsFoldStore({ root });
    const evidence = new FsEvidenceStore({ root, capBytes: 10_000 });
    for (let index = 0; index < 10; index += 1) await store.putBlob(randomBytes(100 + index));
    await store.putFold('session-ok', sampleFoldRecord());
    await store.saveState('session-ok', sampleEngineState('session-ok'));
    await evidence.put('session-ok', 'artifact');
    await expect(evidence.put('session-ok', randomBytes(20_000))).rejects.toMatchObject({ code: 'STORE.CAP_REACHED' });
    for (const id of HOSTILE_IDS) {
      await expect(store.saveState(id as string, sampleEngineState(String(id)))).rejects.toMatchObject({
        code: 'STORE.INVALID_KEY',
      });
      await expect(store.putFold('session-ok', { ...sampleFoldRecord(), id: id as string })).rejects.toMatchObject({
        code: 'STORE.INVALID_KEY',
      });
      await expect(evidence.put(id as string, 'x')).rejects.toMatchObject({ code: 'STORE.INVALID_KEY' });
    }
    expect(await readdir(parent)).toEqual(['store']);
    const tree = await listTree(root);
    expect(tree.every((path) => /^(blobs|sessions|evidence)(\/|$)/.test(path))).toBe(true);
    expect(tree.some((path) => path.includes('..'))).toBe(false);
  });

  test('a symlink planted inside the root cannot redirect writes outside it', async () => {
    // Ids cannot contain separators, so the only way out is a link planted inside the root.
    const root = join(scratch, 'symlink-root');
    const outside = join(scratch, 'outside');
    await mkdir(join(root, 'sessions'), { recursive: true });
    await mkdir(join(root, 'evidence'), { recursive: true });
    await mkdir(outside);
    await symlink(outside, join(root, 'sessions', 'planted'));
    await symlink(outside, join(root, 'evidence', 'planted'));
    const store = new FsFoldStore({ root });
    await expect(store.saveState('planted', sampleEngineState('planted'))).rejects.toMatchObject({
      code: 'STORE.INVALID_KEY',
      message: expect.stringContaining('outside the store root'),
    });
    await expect(store.putFold('planted', sampleFoldRecord())).rejects.toMatchObject({ code: 'STORE.INVALID_KEY' });
    await expect(new FsEvidenceStore({ root }).put('planted', 'x')).rejects.toMatchObject({
      code: 'STORE.INVALID_KEY',
    });
    expect(await readdir(outside)).toEqual([]);
    // The root itself may be a link (e.g. ~/.local/share/pi-fold on another disk).
    const linkedRoot = join(scratch, 'linked-root');
    await symlink(join(scratch, 'layout'), linkedRoot);
    await new FsFoldStore({ root: linkedRoot }).saveState('session-2', sampleEngineState('session-2'));
  });
});

describe('failures are never reported as absence', () => {
  test('fs: a blob path that is a directory is READ_FAILED, not NOT_FOUND; a root that is a file is WRITE_FAILED', async () => {
    const root = join(scratch, 'odd');
    const store = new FsFoldStore({ root });
    const sha = (await import('node:crypto')).createHash('sha256').update('odd').digest('hex');
    await mkdir(store.layout.blobPath(sha), { recursive: true });
    await expect(store.getBlob(sha)).rejects.toMatchObject({
      code: 'STORE.READ_FAILED',
      message: expect.stringContaining(`blobs/sha256/${sha.slice(0, 2)}/${sha}`),
    });
    await mkdir(store.layout.statePath('s1'), { recursive: true });
    await expect(store.loadState('s1')).rejects.toMatchObject({
      code: 'STORE.READ_FAILED',
      message: expect.stringContaining('sessions/s1/state.json'),
    });
    const fileRoot = join(scratch, 'root-is-a-file');
    await writeFile(fileRoot, 'not a directory');
    const blocked = new FsFoldStore({ root: fileRoot });
    await expect(blocked.putBlob('x')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
    await expect(blocked.saveState('s1', sampleEngineState('s1'))).rejects.toMatchObject({
      code: 'STORE.WRITE_FAILED',
      message: expect.stringContaining('sessions/s1/state.json'),
    });
    await expect(blocked.listFolds('s1')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
  });

  test('keyv: a failing backend is READ_FAILED naming the key, and a Keyv without throwOnErrors is refused', async () => {
    const broken = new Map<string, unknown>();
    broken.get = () => {
      throw new Error('disk on fire');
    };
    const store = new KeyvFoldStore({ keyv: new Keyv({ store: broken, throwOnErrors: true }), name: 'broken' });
    await expect(store.loadState('s1')).rejects.toMatchObject({
      code: 'STORE.READ_FAILED',
      message: expect.stringMatching(/broken store failed to read engine state session\/s1\/state \(disk on fire\)/),
    });
    await expect(store.getFold('s1', 'fold_1')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
    expect(() => new KeyvFoldStore({ keyv: new Keyv() })).toThrow(/throwOnErrors/);
  });
});
