import { existsSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The tokenizer the lab counts wire tokens with (o200k). */
export const REPLAY_TOKENIZER = 'gpt-tokenizer@4.0.0';

/** The Pi the replay runs on: which line, and the version found. */
export interface InstalledPi {
  readonly line: PiLine;
  readonly version: string;
}

/**
 * The supported Pi installed where pi-fold resolves its packages, old scope first (the one the
 * lab's code imports, so it needs no mapping), or undefined when neither is.
 */
export function findInstalledPi(from: string = dirname(fileURLToPath(import.meta.url))): InstalledPi | undefined {
  for (const line of PI_LINES) {
    const version = installedVersion(`${line.scope}/pi-coding-agent`, from);
    if (version !== undefined) return { line, version };
  }
  return undefined;
}

/** The version in the package.json Node's bare-specifier lookup would find for `name`, walking up from `from`. */
function installedVersion(name: string, from: string): string | undefined {
  let directory = from;
  for (;;) {
    const manifest = join(directory, 'node_modules', name, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { version?: unknown };
      return typeof parsed.version === 'string' ? parsed.version : 'unknown';
    }
    const parent = dirname(directory);
    if (parent === directory) return undefined;
    directory = parent;
  }
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

/** The install lines for `replay`'s packages, either Pi line, for the message when one is missing. */
export function replayInstallHelp(): string {
  return PI_LINES.map(
    (line) => `  npm install ${line.install} ${REPLAY_TOKENIZER}   # Pi ${line.range} (${line.scope}, ${line.node})`,
  ).join('\n');
}
