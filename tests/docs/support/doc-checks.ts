import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';

/**
 * Checks that hold the prose docs to the tree: a doc that names a file names one that exists,
 * and the tables that list the layer rules, core's rooms and the adapters list every one of
 * them. Pure functions over a root folder, so the test runs them on the real tree and on
 * small fixture trees that break each check on purpose.
 */

/** The repository's top folders: a name starting with one of these is read as a repo path. */
const REPO_TOPS = [
  'core',
  'ports',
  'adapters',
  'composition',
  'application',
  'bin',
  'lab',
  'testing',
  'bench',
  'tests',
  'docs',
  'examples',
  'scripts',
  'compat',
  '.ci',
];

/** Folders a run writes and git ignores (.gitignore): a doc may name what will be there. */
const GENERATED = [/^lab\/out\//, /(^|\/)node_modules(\/|$)/, /^dist\//, /^coverage\//];

/** Placeholders and patterns, not paths: `adapters/<side>/`, `tests/*.test.ts`, `core/…`. */
const PATTERN_MARKS = /[<>*{}…$]|\.\.\./;

const PATH_TOKEN = new RegExp(
  `(?<![\\w.~/@:-])(?:\\./)?((?:${REPO_TOPS.map((top) => top.replace('.', '\\.')).join('|')})/[^\\s\`'"()\\[\\],;|]*)`,
  'g',
);

/** The docs whose paths are checked: every page under docs/, the README and CONTRIBUTING. */
export function docFiles(root: string): string[] {
  const under = (folder: string): string[] =>
    readdirSync(join(root, folder)).flatMap((name) => {
      const path = `${folder}/${name}`;
      if (statSync(join(root, path)).isDirectory()) return under(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [...under('docs'), 'README.md', 'CONTRIBUTING.md'].filter((path) => existsSync(join(root, path)));
}

/**
 * Every repo path a markdown text names, written from the repo's root (`core/state/frontier.ts`,
 * `adapters/hosts/pi/landing/`, in code spans, code blocks or prose), without placeholders,
 * patterns or what a run generates.
 */
export function namedPaths(markdown: string): string[] {
  const paths = [...markdown.matchAll(PATH_TOKEN)].map((match) =>
    (match[1] ?? '').replace(/[#:].*$/, '').replace(/[.:]+$/, ''),
  );
  return [...new Set(paths)].filter(
    (path) => !PATTERN_MARKS.test(path) && !GENERATED.some((pattern) => pattern.test(path)),
  );
}

/** The local targets of a markdown text's links, as written (anchors dropped). */
export function linkTargets(markdown: string): string[] {
  const targets = [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => (match[1] ?? '').split('#')[0] ?? '');
  return [...new Set(targets)].filter((target) => target.length > 0 && !/^[a-z]+:/.test(target));
}

/** A link target written in `doc`, as a root-relative path with `/` separators. */
function fromDoc(doc: string, target: string): string {
  return normalize(join(dirname(doc), target))
    .split(sep)
    .join('/');
}

/** A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a markdown text's headings (outside code blocks), a repeated one numbered as GitHub does. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  let inCode = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) inCode = !inCode;
    const heading = inCode ? undefined : /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = headingAnchor(heading);
    let numbered = anchor;
    for (let count = 1; anchors.has(numbered); count += 1) numbered = `${anchor}-${count}`;
    anchors.add(numbered);
  }
  return anchors;
}

/** The `page.md#anchor` links (or `#anchor` within the page) whose page has no such heading. */
function missingAnchors(root: string, doc: string, markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)].flatMap((match) => {
    const [, target = '', anchor = ''] = match;
    if (/^[a-z]+:/.test(target) || (target !== '' && !target.endsWith('.md'))) return [];
    const page = target === '' ? doc : fromDoc(doc, target);
    if (!existsSync(join(root, page))) return [];
    return headingAnchors(readFileSync(join(root, page), 'utf8')).has(anchor) ? [] : [`${page}#${anchor}`];
  });
}

/**
 * `<doc>: <path>` for every path or link of the doc at `doc` (root-relative) that does not
 * exist, and for every link to a heading its page does not have.
 */
export function missingPaths(root: string, doc: string): string[] {
  const markdown = readFileSync(join(root, doc), 'utf8');
  const named = namedPaths(markdown).filter((path) => !existsSync(join(root, path)));
  const linked = linkTargets(markdown)
    .map((target) => fromDoc(doc, target))
    .filter((path) => !existsSync(join(root, path)));
  const anchors = missingAnchors(root, doc, markdown);
  return [...new Set([...named, ...linked, ...anchors])].map((path) => `${doc}: ${path}`);
}

/** A markdown table: its header cells and its rows' cells, trimmed. */
export interface MarkdownTable {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Every table of a markdown text, in order. */
export function markdownTables(markdown: string): MarkdownTable[] {
  const lines = markdown.split('\n');
  const tables: MarkdownTable[] = [];
  for (let index = 0; index + 1 < lines.length; index += 1) {
    const isTableStart = lines[index]!.trim().startsWith('|') && /^\s*\|?\s*:?-{3,}/.test(lines[index + 1]!);
    if (!isTableStart) continue;
    const header = cells(lines[index]!);
    const rows: string[][] = [];
    let next = index + 2;
    while (next < lines.length && lines[next]!.trim().startsWith('|')) rows.push(cells(lines[next++]!));
    tables.push({ header, rows });
    index = next - 1;
  }
  return tables;
}

/** The code spans of one table cell: `` `a` and `b` `` gives a, b. */
export function codeSpans(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
}

/** The names a doc's rule table lists: the code spans of the first column of tables headed `rule`. */
export function ruleTableNames(markdown: string): string[] {
  return markdownTables(markdown)
    .filter((table) => table.header[0]?.toLowerCase() === 'rule')
    .flatMap((table) => table.rows.flatMap((row) => codeSpans(row[0] ?? '')));
}

/** `missing: <rule>` for a rule the tables leave out, `unknown: <name>` for a name that is no rule. */
export function ruleTableGaps(markdown: string, ruleNames: readonly string[]): string[] {
  const listed = ruleTableNames(markdown);
  return [
    ...ruleNames.filter((rule) => !listed.includes(rule)).map((rule) => `missing: ${rule}`),
    ...listed.filter((name) => !ruleNames.includes(name)).map((name) => `unknown: ${name}`),
  ];
}

/** The `adapters/<side>/<name>/` folders of the tree. */
export function adapterFolders(root: string): string[] {
  return ['hosts', 'backends'].flatMap((side) => {
    const folder = join(root, 'adapters', side);
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .filter((name) => statSync(join(folder, name)).isDirectory())
      .map((name) => `adapters/${side}/${name}/`);
  });
}

/** The folders directly under `core/`: its rooms as the tree has them. */
export function coreFolders(root: string): string[] {
  return readdirSync(join(root, 'core'))
    .filter((name) => statSync(join(root, 'core', name)).isDirectory())
    .sort();
}

/**
 * What the architecture page's tables leave out: each folder (`core/<room>/`,
 * `adapters/<side>/<name>/`) must open a row of one of its tables, and a core room's row must
 * name a file inside the room (its main file).
 */
export function tableGaps(markdown: string, folders: readonly string[]): string[] {
  const rows = markdownTables(markdown).flatMap((table) => table.rows);
  return folders.flatMap((folder) => {
    const row = rows.find((cellsOfRow) => codeSpans(cellsOfRow[0] ?? '').includes(folder));
    if (row === undefined) return [`no row: ${folder}`];
    if (!folder.startsWith('core/')) return [];
    const namesAFile = row
      .slice(1)
      .flatMap(codeSpans)
      .some((span) => span.startsWith(folder) && span.endsWith('.ts'));
    return namesAFile ? [] : [`no main file: ${folder}`];
  });
}

/** The main file a core room's row names: the last `.ts` code span inside the room. */
export function roomMainFiles(markdown: string, rooms: readonly string[]): Map<string, string> {
  const rows = markdownTables(markdown).flatMap((table) => table.rows);
  const mains = new Map<string, string>();
  for (const room of rooms) {
    const folder = `core/${room}/`;
    const row = rows.find((cellsOfRow) => codeSpans(cellsOfRow[0] ?? '').includes(folder));
    const main = row
      ?.slice(1)
      .flatMap(codeSpans)
      .filter((span) => span.startsWith(folder) && span.endsWith('.ts'))
      .at(-1);
    if (main !== undefined) mains.set(room, main);
  }
  return mains;
}

/**
 * The rooms whose main file does not open with the room's one-line comment,
 * `/** Room core/<room>/: <its idea> *\/`, as `<room>: <what is wrong>`: the first line a
 * newcomer opening the room reads says what belongs there.
 */
export function roomsWithoutOpening(root: string, mains: ReadonlyMap<string, string>): string[] {
  return [...mains].flatMap(([room, main]) => {
    const path = join(root, main);
    if (!existsSync(path)) return [`${room}: ${main} does not exist`];
    const first = readFileSync(path, 'utf8').split('\n', 1)[0] ?? '';
    const opening = new RegExp(`^/\\*\\* Room core/${room}/: \\S.* \\*/$`);
    return opening.test(first) ? [] : [`${room}: ${main} opens with ${JSON.stringify(first.slice(0, 60))}`];
  });
}
