import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';

/**
 * The project's layers, checked by reading every import of every TypeScript file. A rule names
 * the room a file lives in (its first folder; `adapters/<name>` and `bench/<name>` count as
 * rooms of their own) and the rooms it may reach. Run on the real tree by the dependency test,
 * and on small fixture trees to show that each rule fires.
 */

/** Rooms whose code ships with the package: they may never reach the benches or the tests. */
const PRODUCT_ROOMS = ['core', 'ports', 'application', 'adapters', 'composition', 'bin', 'lab', 'testing'];

/** Host SDKs and wiring libraries the engine must not know. */
const ENGINE_FORBIDDEN_PACKAGES =
  /^(tsyringe|reflect-metadata|keyv|@keyv\/|ai$|ai\/|@ai-sdk\/|@mariozechner\/|@earendil-works\/|typebox|zod)/;

/**
 * Adapter-to-adapter imports that are part of the design: every store adapter may use the
 * shared storage helpers, and the SQLite preset is built on the Keyv adapter it presets.
 */
const ALLOWED_ADAPTER_EDGES: readonly (readonly [from: string, to: string])[] = [
  ['*', 'storage-shared'],
  ['storage-sqlite', 'storage-keyv'],
];

/** One import statement of one file, with where it points inside the tree (or the bare package name). */
interface ImportEdge {
  readonly file: string;
  readonly specifier: string;
  /** Tree-relative path with `/` separators for a relative import; the bare specifier otherwise. */
  readonly target: string;
  readonly relative: boolean;
}

/** A broken rule, as the test prints it: `<rule>: <file> imports <specifier>`. */
export type LayerViolation = string;

function sourceFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(directory, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

const IMPORT_PATTERN =
  /(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;

function importsOf(root: string, path: string): ImportEdge[] {
  const file = relative(root, path).split(sep).join('/');
  return [...readFileSync(path, 'utf8').matchAll(IMPORT_PATTERN)].map((match) => {
    const specifier = match[1] ?? match[2] ?? match[3] ?? '';
    const isRelative = specifier.startsWith('.');
    const target = isRelative
      ? relative(root, resolve(path, '..', specifier))
          .split(sep)
          .join('/')
      : specifier;
    return { file, specifier, target, relative: isRelative };
  });
}

/** The room of a tree-relative path: `core`, `adapters/pi`, `bench/engine`, … */
function roomOf(path: string): string {
  const [first, second] = path.split('/');
  return (first === 'adapters' || first === 'bench') && second !== undefined && path.split('/').length > 2
    ? `${first}/${second}`
    : (first ?? '');
}

const topOf = (room: string) => room.split('/')[0] ?? room;
const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:');

/** core/ and ports/ reach nothing outward; a port reaches only other ports; core knows no SDK or DI library. */
function engineRule(edge: ImportEdge, room: string): string | undefined {
  if (room !== 'core' && room !== 'ports') return undefined;
  if (room === 'ports' && !(edge.relative && topOf(roomOf(edge.target)) === 'ports')) return 'ports-import-only-ports';
  if (edge.relative && !['core', 'ports'].includes(topOf(roomOf(edge.target)))) return 'engine-imports-nothing-outward';
  if (!edge.relative && ENGINE_FORBIDDEN_PACKAGES.test(edge.specifier)) return 'engine-imports-no-sdk-or-di';
  return undefined;
}

/** Shipped code never depends on benchmarks or on the test suite. */
function productRule(edge: ImportEdge, room: string): string | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || !edge.relative) return undefined;
  return ['bench', 'tests'].includes(topOf(roomOf(edge.target))) ? 'product-imports-no-bench-or-tests' : undefined;
}

/** An adapter uses no other adapter, except the shared storage helpers and a preset's own base. */
function adapterRule(edge: ImportEdge, room: string): string | undefined {
  if (topOf(room) !== 'adapters' || !edge.relative) return undefined;
  const targetRoom = roomOf(edge.target);
  if (topOf(targetRoom) !== 'adapters' || targetRoom === room) return undefined;
  const from = room.slice('adapters/'.length);
  const to = targetRoom.slice('adapters/'.length);
  const allowed = ALLOWED_ADAPTER_EDGES.some(
    ([allowedFrom, allowedTo]) => (allowedFrom === '*' || allowedFrom === from) && allowedTo === to,
  );
  return allowed ? undefined : 'adapter-imports-no-other-adapter';
}

/** A bench takes its helpers from testing/ or its own folder, never from the tests or another bench. */
function benchRule(edge: ImportEdge, room: string): string | undefined {
  if (topOf(room) !== 'bench' || !edge.relative) return undefined;
  const targetRoom = roomOf(edge.target);
  const top = topOf(targetRoom);
  if (top === 'tests' || top === 'examples') return 'bench-takes-from-testing-or-own-folder';
  if (top === 'bench' && targetRoom !== room) return 'bench-takes-from-testing-or-own-folder';
  return undefined;
}

/** The application layer (retention) is written against core and the ports only. */
function applicationRule(edge: ImportEdge, room: string): string | undefined {
  if (room !== 'application') return undefined;
  if (!edge.relative) return isNodeBuiltin(edge.specifier) ? undefined : 'application-imports-only-core-and-ports';
  return ['application', 'core', 'ports'].includes(topOf(roomOf(edge.target)))
    ? undefined
    : 'application-imports-only-core-and-ports';
}

/** tsyringe is the composition root's business: no other shipped room imports it (or its metadata polyfill). */
function containerRule(edge: ImportEdge, room: string): string | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || room === 'composition' || edge.relative) return undefined;
  // core and ports already answer to the engine rule for these packages.
  if (room === 'core' || room === 'ports') return undefined;
  return /^(tsyringe|reflect-metadata)$/.test(edge.specifier) ? 'only-composition-imports-tsyringe' : undefined;
}

/**
 * The injection tokens are the container's keys, so only the composition root looks a port up
 * by one; everything else is handed the ports it needs as values (`ComposedRuntime.ports`).
 */
function tokenRule(edge: ImportEdge, room: string): string | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || room === 'composition' || !edge.relative) return undefined;
  return edge.target === 'composition/tokens.ts' ? 'only-composition-resolves-tokens' : undefined;
}

const RULES = [engineRule, productRule, adapterRule, benchRule, applicationRule, containerRule, tokenRule];

/** Every broken rule in the tree at `root`, one line per rule and import, in file order. */
export function layerViolations(root: string): LayerViolation[] {
  const rooms = ['core', 'ports', 'application', 'adapters', 'composition', 'bin', 'lab', 'testing', 'bench'];
  const violations: LayerViolation[] = [];
  for (const top of rooms) {
    for (const path of sourceFiles(join(root, top)).sort()) {
      for (const edge of importsOf(root, path)) {
        const room = roomOf(edge.file);
        for (const rule of RULES) {
          const broken = rule(edge, room);
          if (broken !== undefined) violations.push(`${broken}: ${edge.file} imports ${edge.specifier}`);
        }
      }
    }
  }
  return violations;
}
