/**
 * The exact pieces of text a model can only have learnt from a tool: paths, commands, numbers
 * of four or more digits, identifiers (with digits, hashes, or spelled in a way no dictionary
 * spells a word) and error lines. Plain words, small numbers and the vocabulary every model
 * knows (hash names, encodings, architectures) are not pieces: a model that writes them
 * proves nothing about what it read.
 */

/** The kinds a need is broken down by in every report. */
export const NEED_KINDS = ['paths', 'commands', 'numbers', 'identifiers', 'errors'] as const;
export type NeedKind = (typeof NEED_KINDS)[number];

/** One piece found in a text. */
export interface Piece {
  readonly text: string;
  readonly kind: NeedKind;
}

// Files named without a folder count only with an extension a file of source, data or
// documentation has: `main.ts` is a file, `e.g` is not. Extensions that are also common
// member names (`.log`, `.env`, `.lock`) are left out, or `console.log` and `process.env`
// would be files; with a folder (`logs/app.log`) they are still paths.
const FILE_EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|mdx|txt|py|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|swift|sh|bash|zsh|' +
  'yml|yaml|toml|ini|cfg|conf|html|css|scss|sql|xml|csv|proto|gradle|vue|svelte|lua|zig|nix';
const FILE_ENDING = new RegExp(`\\.(?:${FILE_EXTENSIONS})$`);
const URL_PATTERN = /https?:\/\/[^\s"'`<>()[\]{}]+/g;
const SLASH_PATH_PATTERN = /(?<![\w@$/.~-])(?:~|\.{1,2})?\/?(?:[\w.@+-]+\/)+[\w.@+-]*/g;
const BARE_FILE_PATTERN = new RegExp(`(?<![\\w/.@-])[\\w-]+(?:\\.[\\w-]+)*\\.(?:${FILE_EXTENSIONS})(?![\\w/])`, 'g');
const NUMBER_PATTERN = /(?<![\w.$-])\d{4,}(?:\.\d+)?(?![\w])/g;
const HEX_PATTERN = /(?<![\w$-])[0-9a-f]{7,64}(?![\w$])/g;
const UUID_PATTERN = /(?<![\w-])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![\w-])/gi;
const WORD_PATTERN = /(?<![\w$])[A-Za-z_$][\w$]{3,}(?![\w$])/g;

/** Words with digits or inner capitals that every model knows without reading them anywhere. */
const COMMON_VOCABULARY: ReadonlySet<string> = new Set(
  [
    'utf8',
    'utf16',
    'utf32',
    'sha1',
    'sha224',
    'sha256',
    'sha384',
    'sha512',
    'md5sum',
    'base32',
    'base64',
    'base64url',
    'x86_64',
    'arm64',
    'aarch64',
    'amd64',
    'win32',
    'win64',
    'int8',
    'int16',
    'int32',
    'int64',
    'uint8',
    'uint16',
    'uint32',
    'uint64',
    'float16',
    'float32',
    'float64',
    'i18n',
    'l10n',
    'ipv4',
    'ipv6',
    'http2',
    'http3',
    'oauth2',
    'h264',
    'h265',
    'python2',
    'python3',
    'pip3',
    'node20',
    'node22',
    'JavaScript',
    'TypeScript',
    'GitHub',
    'GitLab',
    'WebSocket',
    'PostgreSQL',
    'MySQL',
    'SQLite',
    'MongoDB',
    'JSONSchema',
    'YouTube',
    'LinkedIn',
    'PowerShell',
    'OpenAI',
    'ChatGPT',
    'macOS',
    'iPhone',
    'iPad',
    'iOS',
    'DevTools',
    'VSCode',
    'NodeJS',
    'GraphQL',
  ].map((word) => word.toLowerCase()),
);

const YEAR = /^(19|20)\d\d$/;
const ES_VERSION = /^es20\d\d$/i;

/** Every piece of `text` except error lines (`errorPieces` finds those in a tool result). */
export function piecesOf(text: string): Piece[] {
  const pieces = new Map<string, NeedKind>();
  const add = (piece: string, kind: NeedKind) => {
    if (!pieces.has(piece)) pieces.set(piece, kind);
  };
  for (const match of text.matchAll(URL_PATTERN)) add(trimTail(match[0]), 'paths');
  const withoutUrls = text.replace(URL_PATTERN, ' ');
  for (const match of withoutUrls.matchAll(SLASH_PATH_PATTERN)) {
    const path = trimTail(match[0]);
    if (isPath(path)) add(path, 'paths');
  }
  for (const match of withoutUrls.matchAll(BARE_FILE_PATTERN)) add(match[0], 'paths');
  for (const match of text.matchAll(UUID_PATTERN)) add(match[0], 'identifiers');
  for (const match of text.matchAll(HEX_PATTERN))
    if (/\d/.test(match[0]) && /[a-f]/.test(match[0])) add(match[0], 'identifiers');
  for (const match of text.matchAll(NUMBER_PATTERN)) if (!YEAR.test(match[0])) add(match[0], 'numbers');
  for (const match of text.matchAll(WORD_PATTERN)) if (isDistinctiveIdentifier(match[0])) add(match[0], 'identifiers');
  return [...pieces].map(([piece, kind]) => ({ text: piece, kind }));
}

/**
 * A path is a piece when it could only name one place: a URL, a path from the root or home,
 * one with two or more folders, or one that ends in a file's extension. `and/or`, `I/O` and
 * `src/` alone are not.
 */
function isPath(path: string): boolean {
  if (path.length < 5 || !/[A-Za-z]/.test(path)) return false;
  const slashes = path.split('/').length - 1;
  if (/^(~|\.{1,2})?\//.test(path) && slashes >= 2) return true;
  if (slashes >= 2 && !path.endsWith('/')) return true;
  return FILE_ENDING.test(path) || /\.(?:log|env|lock)$/.test(path);
}

/**
 * An identifier is distinctive when a model could not write it from general knowledge alone:
 * it holds a digit beside letters (`handler2`, `TS2345`), or its spelling joins words the
 * way code does (`buildSessionProjection`, `AgentSession`, `MAX_RETRIES`, `first_kept_entry`).
 * `useState`, `toString`, `sha256` and brand names are not.
 */
export function isDistinctiveIdentifier(word: string): boolean {
  const lower = word.toLowerCase();
  if (COMMON_VOCABULARY.has(lower) || ES_VERSION.test(word)) return false;
  const letters = (word.match(/[A-Za-z]/g) ?? []).length;
  if (/\d/.test(word)) return letters >= 2 && word.length >= 4 && !/^\d/.test(word) && !/^[a-f0-9]+$/.test(word);
  if (word.length < 8) return false;
  const humps = (word.match(/[a-z][A-Z]/g) ?? []).length;
  if (humps >= 2) return true;
  if (humps === 1 && /^[A-Z]/.test(word)) return true;
  const parts = word.split('_').filter((part) => part.length > 0);
  return parts.length >= 2 && parts.every((part) => /[A-Za-z]/.test(part)) && word.length >= 10;
}

// An error line is what a tool printed when something failed: a label such as `error:`,
// `Error[E0308]:`, `fatal:`, `panic:`, `FAILED`, `npm ERR!` or a Python traceback. A line of
// source code that names an `error` variable is code, not an error, and is left out.
const ERROR_LINE =
  /(?:^|\s|\()(?:error|Error|ERROR|fatal|FATAL|panic|Exception|[A-Z]\w*(?:Error|Exception))(?:\[[^\]]*\]|\s+[A-Z]+\d+)?:|\bFAIL(?:ED)?\b|npm ERR!|^Traceback \(/;
const CODE_LINE =
  /(?:[;{},]$|^[{}]|=>|\s=\s|^(?:const|let|var|function|return|import|export|if|else|catch|throw)\b|\bcatch\s*\()/;
const ERROR_LABEL = /\b(?:error|exception|panic|fatal)\b[^:\n]{0,24}:\s*/i;
const ERROR_LINE_MIN = 24;
const ERROR_LINE_MAX = 240;

/**
 * The error lines of a tool result, each as the whole trimmed line and as its message after
 * an `error …:` label (a model quotes `Cannot find name 'x'`, not the file and column
 * before it). Lines too short to be told from prose, or too long to be quoted, are left out.
 */
export function errorPieces(text: string): string[] {
  const found = new Set<string>();
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.length < ERROR_LINE_MIN || line.length > ERROR_LINE_MAX) continue;
    if (!ERROR_LINE.test(line) || CODE_LINE.test(line)) continue;
    found.add(line);
    const label = ERROR_LABEL.exec(line);
    if (label !== null) {
      const message = line.slice(label.index + label[0].length).replace(/[.\s]+$/, '');
      if (message.length >= ERROR_LINE_MIN) found.add(message);
    }
  }
  return [...found];
}

/**
 * The commands of a tool call's arguments (`command`, `cmd`, `script`): the command's first
 * line and each part of it between `&&`, `||`, `;` and `|`, when it is long enough to be one
 * a model copied rather than typed (two words, 12 characters: `git push` is known to every
 * model). Later lines (a heredoc, a commit message) are text, not commands.
 */
export function commandPieces(argumentsValue: Record<string, unknown>): string[] {
  const found = new Set<string>();
  for (const key of ['command', 'cmd', 'script']) {
    const value = argumentsValue[key];
    if (typeof value !== 'string') continue;
    const firstLine = value.split('\n', 1)[0]!;
    for (const part of [firstLine, ...firstLine.split(/&&|\|\||;|\|/)]) {
      const command = part.trim();
      if (command.length >= 12 && /\s/.test(command)) found.add(command);
    }
  }
  return [...found];
}

function trimTail(text: string): string {
  return text.replace(/[.,:;!?'"`)\]}>]+$/, '');
}
