import { accessSync, constants, existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

/**
 * What `pi-fold doctor` looks at in a Pi install, each check reading files only: which Pi and
 * Node, Pi's settings files, what they register as extensions and packages (a `.tgz` there
 * stops every Pi start), where pi-fold is loaded from, pi-fold's own settings file, and the
 * session stores pi-fold keeps beside Pi's sessions.
 */
export type FindingLevel = 'ok' | 'note' | 'problem';

export interface Finding {
  readonly level: FindingLevel;
  readonly check: string;
  readonly said: string;
  /** What to do about it; absent when nothing needs doing. */
  readonly fix?: string;
  /** Set on a settings entry that registers pi-fold (loadable or not). */
  readonly piFold?: true;
}

export interface DoctorPlaces {
  readonly agentDirectory: string;
  readonly projectDirectory: string;
  readonly piFoldSettings: string;
  readonly path: string;
}

/** Where Pi keeps its files (`PI_CODING_AGENT_DIR`, else ~/.pi/agent) and where pi-fold keeps its settings. */
export function defaultPlaces(environment: NodeJS.ProcessEnv = process.env): DoctorPlaces {
  const agent = environment.PI_CODING_AGENT_DIR;
  const config = environment.PI_FOLD_CONFIG_DIR;
  return {
    agentDirectory: agent === undefined || agent === '' ? join(homedir(), '.pi', 'agent') : expandHome(agent),
    projectDirectory: process.cwd(),
    piFoldSettings: join(
      config === undefined || config === '' ? join(homedir(), '.config', 'pi-fold') : config,
      'settings.json',
    ),
    path: environment.PATH ?? '',
  };
}

function expandHome(path: string): string {
  return path === '~' ? homedir() : path.startsWith('~/') ? join(homedir(), path.slice(2)) : path;
}

const PI_PACKAGES = ['@mariozechner/pi-coding-agent', '@earendil-works/pi-coding-agent'] as const;

/** Node against what each Pi line needs (docs/compatibility.md). */
export function checkNode(version = process.versions.node): Finding {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  const atLeast = (wantMajor: number, wantMinor: number) =>
    major > wantMajor || (major === wantMajor && minor >= wantMinor);
  if (!atLeast(20, 6))
    return {
      level: 'problem',
      check: 'node',
      said: `Node ${version} is older than pi-fold needs (≥ 20.6)`,
      fix: 'install Node 20.6 or later (Pi 1.x needs ≥ 22.19)',
    };
  return {
    level: 'ok',
    check: 'node',
    said: `Node ${version}${atLeast(22, 19) ? ' (runs Pi 0.73.x and 1.x)' : ' (runs Pi 0.73.x; Pi 1.x needs Node ≥ 22.19)'}`,
  };
}

/** The `pi` on PATH, followed to its package: which generation and version it is. */
export function checkPi(path: string): Finding {
  const found = path
    .split(delimiter)
    .filter((folder) => folder.length > 0)
    .map((folder) => join(folder, 'pi'))
    .find((candidate) => existsSync(candidate));
  if (found === undefined)
    return {
      level: 'note',
      check: 'pi',
      said: 'no `pi` on PATH',
      fix: 'install Pi (npm install -g @mariozechner/pi-coding-agent@0.73.1, or @earendil-works/pi-coding-agent@1.6.0 on Node ≥ 22.19), or run doctor where Pi is on PATH',
    };
  const manifest = owningPiPackage(realpathSync(found));
  if (manifest === undefined)
    return { level: 'note', check: 'pi', said: `pi at ${found}, not from a Pi package pi-fold knows` };
  const supported =
    manifest.name === PI_PACKAGES[0] ? /^0\.(7[3-9]|[89]\d)\./.test(manifest.version) : /^1\./.test(manifest.version);
  return supported
    ? { level: 'ok', check: 'pi', said: `Pi ${manifest.version} (${manifest.name}) at ${found}` }
    : {
        level: 'problem',
        check: 'pi',
        said: `Pi ${manifest.version} (${manifest.name}) at ${found} is outside the supported lines (0.73.x–0.x, 1.x)`,
        fix: 'install Pi 0.73.1 or 1.6.0 (docs/install.md)',
      };
}

function owningPiPackage(file: string): { name: string; version: string } | undefined {
  let folder = dirname(file);
  for (let depth = 0; depth < 6; depth += 1) {
    const candidate = join(folder, 'package.json');
    if (existsSync(candidate)) {
      const manifest = readJson(candidate) as { name?: string; version?: string } | undefined;
      if (manifest?.name !== undefined && (PI_PACKAGES as readonly string[]).includes(manifest.name))
        return { name: manifest.name, version: String(manifest.version) };
    }
    folder = dirname(folder);
  }
  return undefined;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** One Pi settings file: whether it parses, and what each extension and package entry it registers is. */
export function checkPiSettings(path: string, label: string): Finding[] {
  if (!existsSync(path))
    return [{ level: 'note', check: label, said: `${path} does not exist (Pi has not written settings here)` }];
  let settings: unknown;
  try {
    settings = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return [
      {
        level: 'problem',
        check: label,
        said: `${path} is not valid JSON (${(error as Error).message.split('\n')[0]})`,
        fix: `fix or move ${path}; Pi reads its packages from it`,
      },
    ];
  }
  if (typeof settings !== 'object' || settings === null || Array.isArray(settings))
    return [{ level: 'problem', check: label, said: `${path} is not a JSON object`, fix: `fix or move ${path}` }];
  const { packages, extensions } = settings as { packages?: unknown; extensions?: unknown };
  const entries = [
    ...(Array.isArray(packages) ? packages.map((entry) => ({ kind: 'package', source: sourceOf(entry) })) : []),
    ...(Array.isArray(extensions) ? extensions.map((entry) => ({ kind: 'extension', source: sourceOf(entry) })) : []),
  ].filter((entry): entry is { kind: string; source: string } => entry.source !== undefined);
  const findings: Finding[] = [
    {
      level: 'ok',
      check: label,
      said: `${path}: ${entries.length} package or extension entr${entries.length === 1 ? 'y' : 'ies'}`,
    },
  ];
  for (const entry of entries) findings.push(...checkEntry(entry.kind, entry.source, dirname(path), label));
  return findings;
}

function sourceOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (typeof entry === 'object' && entry !== null && typeof (entry as { source?: unknown }).source === 'string')
    return (entry as { source: string }).source;
  return undefined;
}

function checkEntry(kind: string, source: string, base: string, label: string): Finding[] {
  if (/\.(tgz|tar\.gz)$/i.test(source))
    return [
      {
        level: 'problem',
        check: label,
        said: `${kind} ${source} is a tarball: Pi registers it but cannot load it, and every start fails on "Unknown file extension .tgz"`,
        piFold: true,
        fix: `remove it (pi remove ${source}${label === 'project settings' ? ' -l' : ''}), then install pi-fold unpacked: tar xzf the tarball and pi install <folder>/package (docs/install.md)`,
      },
    ];
  if (source.startsWith('npm:')) {
    const named = source.slice(4).startsWith('pi-fold');
    return named
      ? [{ level: 'ok', check: label, said: `${kind} ${source}: pi-fold from the registry (Pi installs it)` }]
      : [];
  }
  if (source.startsWith('git:') || /^https?:/.test(source)) return [];
  const path = isAbsolute(expandHome(source)) ? expandHome(source) : resolve(base, source);
  const manifest = existsSync(join(path, 'package.json'))
    ? (readJson(join(path, 'package.json')) as PiFoldManifest | undefined)
    : undefined;
  if (manifest?.name !== 'pi-fold') {
    if (!existsSync(path))
      return [
        {
          level: 'problem',
          check: label,
          said: `${kind} ${source} does not exist`,
          fix: `remove it (pi remove ${source}) or restore the folder`,
        },
      ];
    return [];
  }
  return [{ ...checkPiFoldFolder(path, manifest, `${kind} ${source}`, label), piFold: true }];
}

interface PiFoldManifest {
  readonly name?: string;
  readonly version?: string;
  readonly pi?: { readonly extensions?: readonly string[] };
}

/** A pi-fold folder Pi loads in place: its extension file must be there and must parse. */
function checkPiFoldFolder(path: string, manifest: PiFoldManifest, entry: string, label: string): Finding {
  const extension = manifest.pi?.extensions?.[0];
  const file = extension === undefined ? undefined : resolve(path, extension);
  if (file === undefined || !existsSync(file))
    return {
      level: 'problem',
      check: label,
      said: `${entry}: pi-fold ${manifest.version ?? '?'} at ${path}, but its extension ${extension ?? '(none named)'} is missing, so Pi loads nothing`,
      fix: existsSync(join(path, 'scripts'))
        ? `in the checkout run npm run build:pi`
        : 'reinstall the package (docs/install.md)',
    };
  try {
    accessSync(file, constants.R_OK);
  } catch {
    return {
      level: 'problem',
      check: label,
      said: `${entry}: ${file} cannot be read`,
      fix: `check the permissions of ${file}`,
    };
  }
  return {
    level: 'ok',
    check: label,
    said: `${entry}: pi-fold ${manifest.version ?? '?'} loads from ${file} (${Math.round(statSync(file).size / 1024)} kB)`,
  };
}

/** pi-fold's own settings file: read only (Pi's /fold-settings writes it). */
export function checkPiFoldSettings(path: string): Finding {
  if (!existsSync(path))
    return { level: 'ok', check: 'pi-fold settings', said: `${path} does not exist: the defaults apply` };
  const parsed = readJson(path);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return {
      level: 'problem',
      check: 'pi-fold settings',
      said: `${path} is not a JSON object, so pi-fold ignores it and uses the defaults`,
      fix: `fix or delete ${path}; /fold-settings in Pi shows the reason and writes a valid file`,
    };
  return { level: 'ok', check: 'pi-fold settings', said: `${path}: ${Object.keys(parsed).join(', ') || 'empty'}` };
}

/** The fold stores beside Pi's sessions (`<session dir>/pi-fold/`), newest first. */
export function findSessionStores(agentDirectory: string, limit = 200): string[] {
  const sessions = join(agentDirectory, 'sessions');
  if (!existsSync(sessions)) return [];
  const stores: { path: string; changed: number }[] = [];
  for (const project of readdirSync(sessions, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    const store = join(sessions, project.name, 'pi-fold');
    if (existsSync(store) && statSync(store).isDirectory())
      stores.push({ path: store, changed: statSync(store).mtimeMs });
    if (stores.length >= limit) break;
  }
  return stores.sort((left, right) => right.changed - left.changed).map((store) => store.path);
}
