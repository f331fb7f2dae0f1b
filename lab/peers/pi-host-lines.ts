import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TOKENIZER_PACKAGE, TOKENIZER_VERSION } from '../provider/tokenizer-package.ts';

/** A supported Pi generation (docs/compatibility.md): its npm scope and what to install for it. */
export interface PiLine {
  readonly scope: '@mariozechner' | '@earendil-works';
  /** The `peerDependencies` range of that generation. */
  readonly range: string;
  /** The install argument for `npm install`, at the tested version. */
  readonly install: string;
  readonly node: string;
}

export const PI_LINES: readonly PiLine[] = [
  {
    scope: '@mariozechner',
    range: '>=0.73.1 <1',
    install: '@mariozechner/pi-coding-agent@0.73.1',
    node: 'Node ≥ 20.6',
  },
  {
    scope: '@earendil-works',
    range: '>=1.6.0 <2',
    install: '@earendil-works/pi-coding-agent@1.6.0',
    node: 'Node ≥ 22.19',
  },
];

/** The tokenizer the lab counts wire tokens with (o200k), as `npm install` takes it. */
export const REPLAY_TOKENIZER = `${TOKENIZER_PACKAGE}@${TOKENIZER_VERSION}`;

/** The Pi the replay runs on: which line, and the package and version found. */
export interface InstalledPi {
  readonly line: PiLine;
  readonly packageName: string;
  readonly version: string;
}

/**
 * The supported Pi that pi-fold's own imports resolve to (through any resolution hooks in
 * force), old scope first (the one the lab's code imports, so it needs no mapping), or
 * undefined when neither is installed.
 */
export function findInstalledPi(): InstalledPi | undefined {
  for (const candidate of PI_LINES) {
    let entry: string;
    try {
      entry = fileURLToPath(import.meta.resolve(`${candidate.scope}/pi-coding-agent`));
    } catch {
      continue;
    }
    const manifest = owningManifest(entry);
    const line = PI_LINES.find((known) => manifest?.name === `${known.scope}/pi-coding-agent`) ?? candidate;
    return {
      line,
      packageName: manifest?.name ?? `${candidate.scope}/pi-coding-agent`,
      version: manifest?.version ?? 'unknown',
    };
  }
  return undefined;
}

/** The name and version of the package a resolved file belongs to: the nearest package.json with a name. */
function owningManifest(file: string): { name: string; version: string } | undefined {
  for (let directory = dirname(file); dirname(directory) !== directory; directory = dirname(directory)) {
    const path = join(directory, 'package.json');
    if (!existsSync(path)) continue;
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as { name?: unknown; version?: unknown };
    if (typeof parsed.name === 'string')
      return { name: parsed.name, version: typeof parsed.version === 'string' ? parsed.version : 'unknown' };
  }
  return undefined;
}

/**
 * Module resolution hook: the lab imports Pi under the old scope; on a Pi 1.x install those
 * imports resolve to the same packages under `@earendil-works` (the same mapping as
 * `lab/peers/pi-host-hooks.mjs`, which the lab uses for other Pi versions). Inline, so the
 * built package needs no extra file and a checkout run under tsx loads it the same way.
 */
const SCOPE_HOOK = `
const PI_PACKAGE = /^@mariozechner\\/(pi-coding-agent|pi-ai|pi-agent-core|pi-tui)(\\/.*)?$/;
export function resolve(specifier, context, nextResolve) {
  const pi = PI_PACKAGE.exec(specifier);
  return nextResolve(pi === null ? specifier : '@earendil-works/' + pi[1] + (pi[2] ?? ''), context);
}
`;

let hookRegistered = false;

/** Make the lab's Pi imports load the installed Pi; call before the replay code is imported. */
export function usePiLine(installed: InstalledPi): void {
  if (installed.line.scope === '@mariozechner' || hookRegistered) return;
  register(`data:text/javascript,${encodeURIComponent(SCOPE_HOOK)}`);
  hookRegistered = true;
}

/** The install lines for `replay`'s packages, one per Pi line, for its help and the message when one is missing. */
export function replayInstallLines(): string[] {
  return PI_LINES.map(
    (line) => `npm install ${line.install} ${REPLAY_TOKENIZER}   # Pi ${line.range} (${line.scope}, ${line.node})`,
  );
}
