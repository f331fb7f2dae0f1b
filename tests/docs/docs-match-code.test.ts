import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_ROOMS, LAYER_RULE_NAMES } from '../core/support/layer-rules.ts';
import {
  adapterFolders,
  coreFolders,
  docFiles,
  missingPaths,
  namedPaths,
  roomMainFiles,
  roomsWithoutOpening,
  ruleTableGaps,
  tableGaps,
} from './support/doc-checks.ts';

const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** A throwaway tree holding exactly the given files. */
function fixture(files: Record<string, string>): string {
  const directory = mkdtempSync(join(tmpdir(), 'pi-fold-docs-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  return directory;
}

/** What docs/architecture.md must give a row: every core room and every adapter folder. */
const architectureFolders = () => [...CORE_ROOMS.map((room) => `core/${room}/`), ...adapterFolders(root)];

describe('the docs match the code', () => {
  it('every repo path a doc names, every file it links and every heading it links to exists', () => {
    const docs = docFiles(root);
    expect(docs).toContain('docs/architecture.md');
    expect(docs.flatMap((doc) => missingPaths(root, doc))).toEqual([]);
  });

  it('the rule tables of CONTRIBUTING.md and docs/architecture.md list every layer rule, and only those', () => {
    expect(ruleTableGaps(read('CONTRIBUTING.md'), LAYER_RULE_NAMES)).toEqual([]);
    expect(ruleTableGaps(read('docs/architecture.md'), LAYER_RULE_NAMES)).toEqual([]);
  });

  it("docs/architecture.md's tables give every core room (with its main file) and every adapter a row", () => {
    expect(architectureFolders().length).toBeGreaterThan(CORE_ROOMS.length);
    expect(tableGaps(read('docs/architecture.md'), architectureFolders())).toEqual([]);
  });

  it("each core room's main file opens with a one-line comment saying the room's idea", () => {
    const mains = roomMainFiles(read('docs/architecture.md'), CORE_ROOMS);
    expect([...mains.keys()]).toEqual([...CORE_ROOMS]);
    expect(roomsWithoutOpening(root, mains)).toEqual([]);
  });

  it("names a room whose main file opens without its comment, or with another room's", () => {
    const tree = fixture({
      'core/state/engine-memory.ts': '/** Room core/state/: what a session keeps. */\n',
      'core/folds/fold-lattice.ts': "import { x } from './x.ts';\n",
      'core/store/verified-reads.ts': '/** Room core/state/: copied from another room. */\n',
    });
    const mains = new Map([
      ['state', 'core/state/engine-memory.ts'],
      ['folds', 'core/folds/fold-lattice.ts'],
      ['store', 'core/store/verified-reads.ts'],
      ['render', 'core/render/gone.ts'],
    ]);
    expect(roomsWithoutOpening(tree, mains)).toEqual([
      'folds: core/folds/fold-lattice.ts opens with "import { x } from \'./x.ts\';"',
      'store: core/store/verified-reads.ts opens with "/** Room core/state/: copied from another room. */"',
      'render: core/render/gone.ts does not exist',
    ]);
  });

  it("core's folders are exactly the rooms of the layer rules' ladder", () => {
    expect(coreFolders(root)).toEqual([...CORE_ROOMS].sort());
  });

  it('reads paths from code spans, code blocks and links, and skips placeholders and generated output', () => {
    const markdown = [
      'See `core/state/frontier.ts` and `adapters/hosts/pi/landing/`, run `pi -e ./adapters/hosts/pi/index.ts`.',
      '```sh\nnpx tsx lab/run-lab.ts --out lab/out/smoke/ tests/<area> core/…\n```',
      'In prose: core/request/project-request.ts:54, and `adapters/<side>/<name>/`, `tests/*.test.ts`.',
      'Not repo paths: `/usr/bin/env`, `ai/docs/03-agents/x.mdx`, `node_modules/.bin/pi-fold`.',
    ].join('\n');
    expect(namedPaths(markdown)).toEqual([
      'core/state/frontier.ts',
      'adapters/hosts/pi/landing/',
      'adapters/hosts/pi/index.ts',
      'lab/run-lab.ts',
      'core/request/project-request.ts',
    ]);
  });

  it('names a path, a link or a heading a link points to that does not exist, in any doc', () => {
    const tree = fixture({
      'core/state/frontier.ts': '',
      'docs/guide.md': [
        'The frontier (`core/state/frontier.ts`, once `core/frontier.ts`); see [storage](storage.md).',
        '## Where it lives: `core/state/`',
        'Up to [here](#where-it-lives-corestate), not [there](#nowhere).',
        '```sh\n# not a heading\n```',
      ].join('\n'),
      'README.md': 'Read [the guide](docs/guide.md#not-a-heading) and [the map](docs/map.md#rooms).\n',
    });
    expect(docFiles(tree).flatMap((doc) => missingPaths(tree, doc))).toEqual([
      'docs/guide.md: core/frontier.ts',
      'docs/guide.md: docs/storage.md',
      'docs/guide.md: docs/guide.md#nowhere',
      'README.md: docs/map.md',
      'README.md: docs/guide.md#not-a-heading',
    ]);
  });

  it('names a rule a table leaves out and a name in a table that is no rule', () => {
    const markdown = [
      '| rule | what it says |',
      '| --- | --- |',
      '| `ports-import-only-ports` | a port imports only ports |',
      '| `core-imports-anything` | not a rule |',
      '',
      '| command | what |',
      '| --- | --- |',
      '| `engine-imports-nothing-outward` | a name outside a rule table does not count |',
    ].join('\n');
    expect(ruleTableGaps(markdown, ['ports-import-only-ports', 'engine-imports-nothing-outward'])).toEqual([
      'missing: engine-imports-nothing-outward',
      'unknown: core-imports-anything',
    ]);
  });

  it('names a room or an adapter with no row, and a room row that names no file of the room', () => {
    const markdown = [
      '| room | idea | main file |',
      '|---|---|---|',
      '| `core/state/` | what a session decided | `core/state/engine-memory.ts` |',
      '| `core/render/` | the window | `core/state/engine-memory.ts` |',
      '| `adapters/hosts/pi/` | Pi | `register-pi-fold.ts` |',
    ].join('\n');
    expect(
      tableGaps(markdown, [
        'core/state/',
        'core/render/',
        'core/search/',
        'adapters/hosts/pi/',
        'adapters/backends/x/',
      ]),
    ).toEqual(['no main file: core/render/', 'no row: core/search/', 'no row: adapters/backends/x/']);
  });
});
