import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFolding } from '../../adapters/hosts/vercel-ai/create-folding.ts';
import { createFoldRuntime } from '../../composition/create-fold-runtime.ts';

/** Every file under a directory, so a refusal can be shown to have written nothing. */
function tree(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: false }).map(String).sort();
}

describe('option errors name the problem and build nothing', () => {
  const scratch = () => mkdtempSync(join(tmpdir(), 'pi-fold-options-'));

  it('a storeRoot that is a file, or under a file, is refused as not a directory', async () => {
    const directory = scratch();
    const file = join(directory, 'notes.txt');
    writeFileSync(file, 'not a store');
    await expect(createFolding({ sessionId: 's1', storeRoot: file, contextWindow: 60_000 })).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringMatching(/storeRoot .*notes\.txt is not a directory \(it is a file\)/),
    });
    await expect(
      createFolding({ sessionId: 's1', storeRoot: join(file, 'inner'), contextWindow: 60_000 }),
    ).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringMatching(/cannot be used as a directory \(ENOTDIR: a part of the path is a file\)/),
    });
    expect(tree(directory)).toEqual(['notes.txt']);
  });

  it('a sqlitePath that is a directory is refused with its path', async () => {
    const directory = scratch();
    mkdirSync(join(directory, 'db'));
    await expect(
      createFolding({ sessionId: 's1', store: 'sqlite', sqlitePath: join(directory, 'db'), contextWindow: 60_000 }),
    ).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringContaining(`sqlitePath ${join(directory, 'db')} is a directory`),
    });
    expect(tree(directory)).toEqual(['db']);
  });

  it('a number given as a string says it was a string', async () => {
    await expect(
      createFolding({ sessionId: 's1', store: 'memory', contextWindow: '60000' as unknown as number }),
    ).rejects.toThrow(/contextWindow must be an integer of at least 1000 tokens, got the string "60000"/);
  });

  it('an on/off option given as anything but true or false is refused, not read as on', async () => {
    const options = { sessionId: 's1', store: 'memory', openTelemetry: 0 } as unknown as Parameters<
      typeof createFoldRuntime
    >[0];
    await expect(createFoldRuntime(options)).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringMatching(/createFoldRuntime: openTelemetry must be true or false, got number 0/),
      details: { option: 'openTelemetry' },
    });
  });

  it('a misspelt option is refused by name with the option it was probably meant as', async () => {
    const options = { sessionId: 's1', store: 'memory', contextWindw: 60_000 } as unknown as Parameters<
      typeof createFolding
    >[0];
    await expect(createFolding(options)).rejects.toMatchObject({
      code: 'SETTINGS.UNKNOWN_OPTION',
      message: expect.stringMatching(/contextWindw is not an option \(did you mean contextWindow\?\)/),
    });
    const runtimeOptions = { sessionId: 's1', store: 'memory', sessionCap: 10 } as unknown as Parameters<
      typeof createFoldRuntime
    >[0];
    await expect(createFoldRuntime(runtimeOptions)).rejects.toMatchObject({
      code: 'SETTINGS.UNKNOWN_OPTION',
      message: expect.stringMatching(/sessionCap is not an option/),
    });
  });

  it('a location the chosen store would ignore is refused, not dropped', async () => {
    const directory = scratch();
    await expect(
      createFolding({ sessionId: 's1', store: 'memory', storeRoot: join(directory, 'root'), contextWindow: 60_000 }),
    ).rejects.toThrow(/storeRoot is only used by the 'fs' and 'sqlite' stores, but store is 'memory'/);
    await expect(
      createFolding({
        sessionId: 's1',
        store: 'fs',
        storeRoot: directory,
        sqlitePath: join(directory, 'x.sqlite'),
        contextWindow: 60_000,
      }),
    ).rejects.toThrow(/sqlitePath is only used by store: 'sqlite', but store is 'fs'/);
    expect(tree(directory)).toEqual([]);
  });

  it('a missing session id says it is required and why', async () => {
    const options = { store: 'memory', contextWindow: 60_000 } as unknown as Parameters<typeof createFolding>[0];
    await expect(createFolding(options)).rejects.toThrow(
      /sessionId is required: it names this conversation in the store, so a later call or process given the same id resumes its folds/,
    );
  });

  it('the sqlite store without sqlitePath lives in storeRoot as pi-fold.sqlite', async () => {
    const directory = scratch();
    const folding = await createFolding({
      sessionId: 's1',
      store: 'sqlite',
      storeRoot: directory,
      contextWindow: 60_000,
    });
    await folding.runtime.act({ action: 'status' });
    await folding.dispose();
    expect(tree(directory)).toContain('pi-fold.sqlite');
  });
});
