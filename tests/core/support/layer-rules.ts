import { readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { sourceFiles } from './source-files.ts';

/**
 * The project's layers, checked by reading every import of every TypeScript file. A rule names
 * the room a file lives in (its first folder; `adapters/<side>/<name>` and `bench/<name>` count
 * as rooms of their own) and the rooms it may reach. Run on the real tree by the dependency test,
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

/**
 * The name of every rule below, as a broken one is printed. The rule tables in CONTRIBUTING.md
 * and docs/architecture.md must name each (tests/docs/docs-match-code.test.ts), and every rule
 * returns one of these, so a new rule cannot ship unlisted.
 */
export const LAYER_RULE_NAMES = [
  'engine-imports-nothing-outward',
  'ports-import-only-ports',
  'engine-imports-no-sdk-or-di',
  'product-imports-no-bench-or-tests',
  'adapter-imports-no-other-adapter',
  'bench-takes-from-testing-or-own-folder',
  'application-imports-only-core-and-ports',
  'only-composition-imports-tsyringe',
  'only-composition-resolves-tokens',
  'adapter-sits-in-hosts-or-backends',
  'backend-imports-no-host-or-composition',
  'composition-imports-no-host',
  'core-room-is-declared',
  'core-room-imports-only-the-error-from-root',
  'core-room-imports-only-rooms-below',
  'lab-imports-no-bin',
  'import-circle',
] as const;

/** One of LAYER_RULE_NAMES. */
export type LayerRuleName = (typeof LAYER_RULE_NAMES)[number];

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

/**
 * The two sides of `adapters/`: hosts sit above the composition root and call it; backends
 * (stores, telemetry, price catalogs, recorders) sit below it and are built by it.
 */
const ADAPTER_SIDES = ['hosts', 'backends'] as const;

/**
 * Core's rooms, lowest first: a room may import only the rooms before it (and, from core's
 * root, only the error type), so no two rooms import each other. The root's facade and entry
 * indexes may import any room.
 */
export const CORE_ROOMS = [
  'util',
  'transcript',
  'folds',
  'pricing',
  'settings',
  'spill',
  'search',
  'store',
  'render',
  'state',
  'commit',
  'session',
  'request',
  'actions',
] as const;

/** The one file at core's root that a room may import. */
const CORE_ROOT_SHARED = 'core/fold-error.ts';

/** The room of a tree-relative path: `core`, `adapters/hosts/pi`, `bench/engine`, … */
function roomOf(path: string): string {
  const parts = path.split('/');
  const [first, second, third] = parts;
  if (first === 'adapters' && third !== undefined && parts.length > 3) return `${first}/${second}/${third}`;
  if (first === 'bench' && second !== undefined && parts.length > 2) return `${first}/${second}`;
  return first ?? '';
}

/** `hosts`, `backends`, or undefined for a path outside `adapters/<side>/`. */
function adapterSideOf(path: string): string | undefined {
  const [first, second] = path.split('/');
  return first === 'adapters' && (ADAPTER_SIDES as readonly string[]).includes(second ?? '') ? second : undefined;
}

const topOf = (room: string) => room.split('/')[0] ?? room;
const isNodeBuiltin = (specifier: string) => specifier.startsWith('node:');

/** core/ and ports/ reach nothing outward; a port reaches only other ports; core knows no SDK or DI library. */
function engineRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (room !== 'core' && room !== 'ports') return undefined;
  if (room === 'ports' && !(edge.relative && topOf(roomOf(edge.target)) === 'ports')) return 'ports-import-only-ports';
  if (edge.relative && !['core', 'ports'].includes(topOf(roomOf(edge.target)))) return 'engine-imports-nothing-outward';
  if (!edge.relative && ENGINE_FORBIDDEN_PACKAGES.test(edge.specifier)) return 'engine-imports-no-sdk-or-di';
  return undefined;
}

/** Shipped code never depends on benchmarks or on the test suite. */
function productRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || !edge.relative) return undefined;
  return ['bench', 'tests'].includes(topOf(roomOf(edge.target))) ? 'product-imports-no-bench-or-tests' : undefined;
}

/** An adapter uses no other adapter, except the shared storage helpers and a preset's own base. */
function adapterRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (topOf(room) !== 'adapters' || !edge.relative) return undefined;
  const targetRoom = roomOf(edge.target);
  if (topOf(targetRoom) !== 'adapters' || targetRoom === room) return undefined;
  const from = room.split('/')[2] ?? room;
  const to = targetRoom.split('/')[2] ?? targetRoom;
  const allowed = ALLOWED_ADAPTER_EDGES.some(
    ([allowedFrom, allowedTo]) => (allowedFrom === '*' || allowedFrom === from) && allowedTo === to,
  );
  return allowed ? undefined : 'adapter-imports-no-other-adapter';
}

/** A bench takes its helpers from testing/ or its own folder, never from the tests or another bench. */
function benchRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (topOf(room) !== 'bench' || !edge.relative) return undefined;
  const targetRoom = roomOf(edge.target);
  const top = topOf(targetRoom);
  if (top === 'tests' || top === 'examples') return 'bench-takes-from-testing-or-own-folder';
  if (top === 'bench' && targetRoom !== room) return 'bench-takes-from-testing-or-own-folder';
  return undefined;
}

/** The application layer (retention) is written against core and the ports only. */
function applicationRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (room !== 'application') return undefined;
  if (!edge.relative) return isNodeBuiltin(edge.specifier) ? undefined : 'application-imports-only-core-and-ports';
  return ['application', 'core', 'ports'].includes(topOf(roomOf(edge.target)))
    ? undefined
    : 'application-imports-only-core-and-ports';
}

/** tsyringe is the composition root's business: no other shipped room imports it (or its metadata polyfill). */
function containerRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || room === 'composition' || edge.relative) return undefined;
  // core and ports already answer to the engine rule for these packages.
  if (room === 'core' || room === 'ports') return undefined;
  return /^(tsyringe|reflect-metadata)$/.test(edge.specifier) ? 'only-composition-imports-tsyringe' : undefined;
}

/**
 * The injection tokens are the container's keys, so only the composition root looks a port up
 * by one; everything else is handed the ports it needs as values (`ComposedRuntime.ports`).
 */
function tokenRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (!PRODUCT_ROOMS.includes(topOf(room)) || room === 'composition' || !edge.relative) return undefined;
  return edge.target === 'composition/tokens.ts' ? 'only-composition-resolves-tokens' : undefined;
}

/**
 * Adapters by direction: every adapter sits in `hosts/` or `backends/`; a backend reaches
 * neither a host nor the composition root that builds it, and the composition root builds
 * backends but never imports a host (hosts call it).
 */
function directionRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  const top = topOf(room);
  if (top === 'adapters' && adapterSideOf(edge.file) === undefined) return 'adapter-sits-in-hosts-or-backends';
  if (!edge.relative) return undefined;
  const targetTop = topOf(roomOf(edge.target));
  const targetSide = adapterSideOf(edge.target);
  if (adapterSideOf(edge.file) === 'backends' && (targetSide === 'hosts' || targetTop === 'composition'))
    return 'backend-imports-no-host-or-composition';
  if (top === 'composition' && targetSide === 'hosts') return 'composition-imports-no-host';
  return undefined;
}

/** The room of a file under `core/`: one of CORE_ROOMS, `root` for the files at core's root. */
function coreRoomOf(path: string): string {
  const parts = path.split('/');
  return parts.length > 2 ? (parts[1] ?? '') : 'root';
}

/** Core's rooms form a ladder (CORE_ROOMS): a room imports only rooms below it, and from the root only the error. */
function coreRoomRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (room !== 'core') return undefined;
  const from = coreRoomOf(edge.file);
  if (from === 'root') return undefined;
  const rank = (CORE_ROOMS as readonly string[]).indexOf(from);
  if (rank < 0) return 'core-room-is-declared';
  if (!edge.relative || topOf(roomOf(edge.target)) !== 'core') return undefined;
  const to = coreRoomOf(edge.target);
  if (to === 'root') return edge.target === CORE_ROOT_SHARED ? undefined : 'core-room-imports-only-the-error-from-root';
  if (to === from) return undefined;
  const targetRank = (CORE_ROOMS as readonly string[]).indexOf(to);
  return targetRank >= 0 && targetRank < rank ? undefined : 'core-room-imports-only-rooms-below';
}

/** `bin/` runs the lab's commands, so the lab never imports `bin/` back. */
function labRule(edge: ImportEdge, room: string): LayerRuleName | undefined {
  if (room !== 'lab' || !edge.relative) return undefined;
  return topOf(roomOf(edge.target)) === 'bin' ? 'lab-imports-no-bin' : undefined;
}

const RULES: readonly ((edge: ImportEdge, room: string) => LayerRuleName | undefined)[] = [
  engineRule,
  productRule,
  adapterRule,
  benchRule,
  applicationRule,
  containerRule,
  tokenRule,
  directionRule,
  coreRoomRule,
  labRule,
];

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

/** How `importCircles` names what it finds. */
const IMPORT_CIRCLE: LayerRuleName = 'import-circle';

/** Rooms whose files must not import each other in a circle. */
const CIRCLE_FREE_ROOMS = ['core', 'ports', 'adapters', 'composition', 'application', 'bin', 'lab'];

/**
 * Every import circle among the files of CIRCLE_FREE_ROOMS, one line per strongly connected
 * group (its files sorted): a group of files that reach one another has no order to read
 * them in, and a change to any of them ripples through all.
 */
export function importCircles(root: string): string[] {
  const graph = new Map<string, string[]>();
  for (const top of CIRCLE_FREE_ROOMS) {
    for (const path of sourceFiles(join(root, top)).sort()) {
      const edges = importsOf(root, path).filter((edge) => edge.relative);
      const file = relative(root, path).split(sep).join('/');
      graph.set(
        file,
        edges.map((edge) => edge.target.replace(/\.js$/, '.ts')),
      );
    }
  }
  return stronglyConnected(graph)
    .filter((group) => group.length > 1)
    .map((group) => `${IMPORT_CIRCLE}: ${group.sort().join(', ')}`)
    .sort();
}

/** Tarjan's strongly connected components over a graph whose edges may name unknown nodes. */
function stronglyConnected(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const order = new Map<string, number>();
  const lowest = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, order.size);
    lowest.set(node, order.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!order.has(next)) {
        visit(next);
        lowest.set(node, Math.min(lowest.get(node)!, lowest.get(next)!));
      } else if (onStack.has(next)) lowest.set(node, Math.min(lowest.get(node)!, order.get(next)!));
    }
    if (lowest.get(node) !== order.get(node)) return;
    const group: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    groups.push(group);
  };
  for (const node of graph.keys()) if (!order.has(node)) visit(node);
  return groups;
}
