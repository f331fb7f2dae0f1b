import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { wrapFold, wrapState } from '../../adapters/backends/storage-shared/stored-records.ts';
import { loadSettingsFile } from '../../adapters/hosts/pi/settings-file.ts';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { snapshotTree, treeChanges } from './support/tree-snapshot.ts';

/**
 * Nothing a model or a session file can say makes the runtime read or write outside its
 * store: hostile ids and shas are fuzzed against the filesystem stores while the whole
 * scratch directory (a sentinel directory beside the store included) is watched; evidence
 * and blobs are read-only files; the settings file is parsed as data, never run, and a
 * hostile one is refused by name and left byte-identical.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const RUNS = long ? 5_000 : 600;

const pathLike = fc.oneof(
  fc.constantFrom(
    '..',
    '../..',
    '../../sentinel',
    '../../../sentinel',
    'planted',
    '../../etc/passwd',
    '/etc/passwd',
    '/tmp',
    'sentinel',
    '../sentinel/secret.txt',
    '..\\..\\x',
    'a/b',
    'a\\b',
    '.',
    '',
    'x\u0000y',
    'C:\\x',
    '%2e%2e',
    'a..b',
    '.hidden',
    '~',
    'sessions/../..',
    'fold_..',
    ' ',
    'a'.repeat(201),
  ),
  fc.string({ maxLength: 30 }),
  fc
    .array(fc.constantFrom('..', '/', '\\', '.', 'sentinel', 'etc', 'passwd', '\u0000', '~'), {
      minLength: 1,
      maxLength: 8,
    })
    .map((parts) => parts.join('')),
);
const wrongType = fc.constantFrom<unknown>(null, undefined, 0, 1.5, Number.NaN, [], {}, ['..'], {
  toString: () => '../x',
});
const key = fc.oneof({ weight: 4, arbitrary: pathLike }, { weight: 1, arbitrary: wrongType });
const shaLike = fc.oneof(
  key,
  fc.constantFrom('A'.repeat(64), '0'.repeat(63), `${'0'.repeat(62)}/.`, `../${'0'.repeat(61)}`),
);

type StoreCall = {
  readonly kind:
    | 'putFold'
    | 'getFold'
    | 'listFolds'
    | 'saveState'
    | 'loadState'
    | 'getBlob'
    | 'hasBlob'
    | 'evidencePut'
    | 'evidenceGet'
    | 'evidenceUsage';
  readonly session: unknown;
  readonly id: unknown;
};
const storeCall: fc.Arbitrary<StoreCall> = fc.record({
  kind: fc.constantFrom(
    'putFold',
    'getFold',
    'listFolds',
    'saveState',
    'loadState',
    'getBlob',
    'hasBlob',
    'evidencePut',
    'evidenceGet',
    'evidenceUsage',
  ),
  session: key,
  id: shaLike,
});

describe('hardening: nothing is read or written outside the store', () => {
  it(`${RUNS} fuzzed hostile keys against the fs stores touch nothing outside the root`, {
    timeout: 300_000,
  }, async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'pi-fold-security-'));
    const root = join(scratch, 'store');
    const sentinel = join(scratch, 'sentinel');
    mkdirSync(sentinel);
    writeFileSync(join(sentinel, 'secret.txt'), 'do not touch');
    writeFileSync(join(scratch, 'passwd'), 'root:x:0:0');
    const folds = new FsFoldStore({ root });
    const evidence = new FsEvidenceStore({ root });
    // A legitimate session first, so the layout exists and reads have something beside them.
    await folds.saveState('good-session', sampleEngineState('good-session', 1));
    // A link planted inside the store, pointing at the sentinel: writes through it must be refused.
    mkdirSync(join(root, 'sessions'), { recursive: true });
    symlinkSync(sentinel, join(root, 'sessions', 'linked'));
    mkdirSync(join(root, 'evidence'), { recursive: true });
    symlinkSync(sentinel, join(root, 'evidence', 'linked'));
    // Valid-looking records planted OUTSIDE the root, where an id like "../../sentinel" would
    // lead a read; any call that returns one has read outside the store.
    const plantedState = { ...sampleEngineState('../../sentinel', 1), pins: ['PLANTED-OUTSIDE'] };
    const plantedFold = { ...sampleFoldRecord({ epoch: 1, brief: 'PLANTED-OUTSIDE' }), id: 'planted' };
    mkdirSync(join(sentinel, 'folds'), { recursive: true });
    writeFileSync(join(sentinel, 'state.json'), JSON.stringify(wrapState('../../sentinel', plantedState)));
    writeFileSync(join(sentinel, 'folds', 'planted.json'), JSON.stringify(wrapFold('../../sentinel', plantedFold)));
    const probes = [
      () => folds.loadState('../../sentinel'),
      () => folds.getFold('../../sentinel', 'planted'),
      () => folds.listFolds('../../sentinel'),
      () => evidence.usage('../../sentinel'),
    ];
    for (const probe of probes) await expect(probe()).rejects.toMatchObject({ code: 'STORE.INVALID_KEY' });
    const outsideBefore = await snapshotTree(scratch, [root]);
    const refusedCodes = new Map<string, number>();
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(storeCall, async (call) => {
        try {
          const value = await run(call);
          if (JSON.stringify(value ?? null).includes('PLANTED-OUTSIDE'))
            throw new Error(
              `${call.kind}(${String(call.session)}, ${String(call.id)}) returned a record planted outside the root`,
            );
          accepted += 1;
        } catch (error) {
          // A refusal is a named FoldError, never a crash or a stray Node error.
          if (!FoldError.isInstance(error)) throw new Error(`${call.kind} threw a non-FoldError: ${String(error)}`);
          refusedCodes.set(error.code, (refusedCodes.get(error.code) ?? 0) + 1);
        }
      }),
      { numRuns: RUNS, seed: 31337 },
    );
    const planted = [
      () => folds.saveState('linked', sampleEngineState('linked', 1)),
      () => folds.putFold('linked', sampleFoldRecord({ epoch: 1 })),
      () => evidence.put('linked', 'through a planted link'),
    ];
    for (const attempt of planted) await expect(attempt()).rejects.toMatchObject({ code: 'STORE.INVALID_KEY' });
    expect(treeChanges(outsideBefore, await snapshotTree(scratch, [root]))).toEqual([]);
    expect(readFileSync(join(sentinel, 'secret.txt'), 'utf8')).toBe('do not touch');
    console.info(
      `[security] ${RUNS} hostile store calls: ${accepted} served inside the root, refused ${[...refusedCodes].map(([code, count]) => `${code}=${count}`).join(' ')}; nothing outside the root changed`,
    );
    rmSync(scratch, { recursive: true, force: true });

    async function run(call: StoreCall): Promise<unknown> {
      const session = call.session as string;
      const id = call.id as string;
      switch (call.kind) {
        case 'putFold':
          return folds.putFold(session, { ...sampleFoldRecord({ epoch: 1 }), id });
        case 'getFold':
          return folds.getFold(session, id);
        case 'listFolds':
          return folds.listFolds(session);
        case 'saveState':
          return folds.saveState(session, sampleEngineState(session, 1));
        case 'loadState':
          return folds.loadState(session);
        case 'getBlob':
          return void (await folds
            .getBlob(id)
            .catch((error: unknown) =>
              FoldError.isInstance(error) && error.code === 'STORE.NOT_FOUND' ? undefined : Promise.reject(error),
            ));
        case 'hasBlob':
          return void (await folds.hasBlob(id));
        case 'evidencePut':
          return void (await evidence.put(session, `payload for ${String(id).slice(0, 20)}`));
        case 'evidenceGet':
          return void (await evidence
            .get(session, id)
            .catch((error: unknown) =>
              FoldError.isInstance(error) && error.code === 'STORE.NOT_FOUND' ? undefined : Promise.reject(error),
            ));
        case 'evidenceUsage':
          return void (await evidence.usage(session));
      }
    }
  });

  it('evidence artifacts, blobs and fold records are read-only files', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pi-fold-modes-'));
    const folds = new FsFoldStore({ root });
    const evidence = new FsEvidenceStore({ root });
    const sha = await folds.putBlob('exact source bytes');
    const record = sampleFoldRecord({ epoch: 2 });
    await folds.putFold('mode-session', record);
    const reference = await evidence.put('mode-session', 'x'.repeat(20_000));
    const mode = (path: string) => statSync(path).mode & 0o777;
    expect(mode(folds.layout.blobPath(sha))).toBe(0o444);
    expect(mode(folds.layout.foldPath('mode-session', record.id))).toBe(0o444);
    expect(mode(new URL(reference.uri).pathname)).toBe(0o444);
    expect(reference.sha256).toBe(sha256Hex('x'.repeat(20_000)));
    rmSync(root, { recursive: true, force: true });
  });
});

describe('hardening: the settings file is data, validated and never executed', () => {
  const marker = join(tmpdir(), `pi-fold-settings-executed-${process.pid}`);
  const payloads: readonly [string, string][] = [
    [
      'JavaScript',
      `module.exports = { thresholds: {} }; require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
    ],
    [
      'an ES module',
      `export default { thresholds: {} };\nimport('node:fs').then((fs) => fs.writeFileSync(${JSON.stringify(marker)}, 'ran'));\n`,
    ],
    [
      'a top-level __proto__',
      '{"__proto__": {"polluted": "yes"}, "thresholds": {"maxTarget": 0.8, "minTarget": 0.4, "consolidateAfter": 10, "minFoldChars": 8000}}',
    ],
    ['a __proto__ inside thresholds', '{"thresholds": {"__proto__": {"polluted": "yes", "maxTarget": 0.1}}}'],
    [
      'a __proto__ beside whole thresholds',
      '{"thresholds": {"maxTarget": 0.8, "minTarget": 0.4, "consolidateAfter": 10, "minFoldChars": 8000, "__proto__": {"polluted": "yes"}}}',
    ],
    ['constructor.prototype', '{"thresholds": {"constructor": {"prototype": {"polluted": "yes"}}}}'],
    ['a prototype key', '{"thresholds": {"prototype": {"polluted": "yes"}, "maxTarget": 0.8}}'],
    [
      'a function-like string',
      '{"thresholds": {"maxTarget": "(() => 0.5)()", "minTarget": 0.4, "consolidateAfter": 10, "minFoldChars": 8000}}',
    ],
    [
      'a huge number',
      '{"thresholds": {"maxTarget": 1e309, "minTarget": 0.4, "consolidateAfter": 10, "minFoldChars": 8000}}',
    ],
    ['a truncated file', '{"thresholds": {"maxTarget": 0.8, "minTa'],
  ];
  for (const [label, text] of payloads) {
    it(`a settings file holding ${label} is refused by name and left byte-identical`, async () => {
      const directory = mkdtempSync(join(tmpdir(), 'pi-fold-settings-'));
      const path = join(directory, 'settings.json');
      writeFileSync(path, text);
      const loaded = await loadSettingsFile(path);
      expect(loaded.status, `${label}: ${loaded.reason}`).toBe('invalid');
      expect(loaded.reason).toMatch(/\S{4,}/);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(existsSync(marker), 'the file was executed').toBe(false);
      expect(({} as Record<string, unknown>).polluted, 'Object.prototype was polluted').toBeUndefined();
      expect(loaded.thresholds).toEqual({ maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 10, minFoldChars: 8000 });
      rmSync(directory, { recursive: true, force: true });
    });
  }
});
