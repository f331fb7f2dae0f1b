import type { SourceTree } from '../source-tree.ts';

/** A deterministic 32-bit mix of integers: the project's "random" facts are functions of what they describe. */
export function mix(...values: readonly number[]): number {
  let hash = 0x811c9dc5;
  for (const value of values) {
    hash = Math.imul(hash ^ (value >>> 0), 0x01000193) >>> 0;
    hash = Math.imul(hash ^ (hash >>> 13), 0x5bd1e995) >>> 0;
  }
  return (hash ^ (hash >>> 15)) >>> 0;
}

function textHash(text: string): number {
  let hash = 0;
  for (let index = 0; index < text.length; index += 1) hash = mix(hash, text.charCodeAt(index));
  return hash;
}

/** Pi's read tool shows at most this many chars of a file; the project's `read` does the same. */
export const READ_LIMIT_CHARS = 50_000;

/** The shell commands of the project, each over a state that moves. */
export const SHELL_COMMANDS = [
  'npm test',
  'tail -n 40 logs/dev.log',
  'git status --short',
  'ls -l',
  'npx tsc --noEmit',
];

const TEST_SUITES = 24;
const FAILURES_SHOWN = 12;
const LOG_LINES_AT_START = 30;
const LOG_LINES_PER_STAGE = 9;
const LOG_LINES_PER_EDIT = 3;
const GREP_MATCH_LIMIT = 40;

/**
 * The working copy the shaped workload's tools act on: the files of a real source tree, the
 * edits landed on them so far, and the clock (the newest stage delivered). Every tool output
 * is a function of this state, so the same calls in the same order give the same bytes in
 * every arm, and asking again later gives what the tool says then: a test run after more
 * edits, a longer log, a listing with new sizes, a file with the lines an edit inserted.
 */
export class ProjectState {
  /** The newest stage delivered: time, as the log and the test timings see it. */
  stage = 0;
  editsLanded = 0;
  private readonly changed = new Map<string, string>();
  private readonly editCounts = new Map<string, number>();
  private readonly lastEditAt = new Map<string, number>();

  constructor(
    private readonly tree: SourceTree,
    private readonly seed: number,
    /** Edits the plan lands in all: test suites break and heal over this span. */
    private readonly plannedEdits: number,
  ) {}

  read(path: string): string {
    const text = this.changed.get(path) ?? this.tree.read(path);
    if (text.length <= READ_LIMIT_CHARS) return text;
    const shown = text.slice(0, READ_LIMIT_CHARS);
    const lines = shown.split('\n').length;
    return `${shown}\n\n[Showing lines 1-${lines} of ${text.split('\n').length}. Use offset=${lines + 1} to continue.]`;
  }

  /** Insert `text` as a new line after line `line` of `path`; the output shows the inserted line on its second line. */
  edit(path: string, line: number, text: string): string {
    const lines = (this.changed.get(path) ?? this.tree.read(path)).split('\n');
    const at = Math.max(0, Math.min(line, lines.length));
    lines.splice(at, 0, text);
    this.changed.set(path, lines.join('\n'));
    this.editsLanded += 1;
    this.editCounts.set(path, (this.editCounts.get(path) ?? 0) + 1);
    this.lastEditAt.set(path, this.editsLanded);
    return `Edited ${path}: inserted 1 line after line ${at}; it has ${lines.length} lines now. Line ${at + 1} reads:\n${text}`;
  }

  shell(command: string): string {
    if (command === 'npm test') return this.testRun();
    if (command.startsWith('tail ')) return this.logTail();
    if (command === 'git status --short') return this.gitStatus();
    if (command.startsWith('ls -l')) return this.listing(command.slice('ls -l'.length).trim());
    if (command === 'npx tsc --noEmit') return this.typeCheck();
    return `bash: ${command.split(' ')[0]}: command not found`;
  }

  /** Lines of every file that contain `pattern`, as `path:line: text`, at most 40. */
  grep(pattern: string): string {
    const matches: string[] = [];
    for (const file of this.tree.files) {
      const lines = (this.changed.get(file.path) ?? this.tree.read(file.path)).split('\n');
      lines.forEach((text, index) => {
        if (matches.length < GREP_MATCH_LIMIT && text.includes(pattern))
          matches.push(`${file.path}:${index + 1}: ${text.trim().slice(0, 160)}`);
      });
      if (matches.length >= GREP_MATCH_LIMIT) break;
    }
    return matches.length === 0 ? `no match for ${pattern}` : matches.join('\n');
  }

  /** A suite fails while the edits landed are inside its broken span: tests fail, then pass as edits land. */
  private suiteFailures(suite: number): number {
    const span = Math.max(1, this.plannedEdits);
    const breaksAt = mix(this.seed, suite, 1) % span;
    const heals = breaksAt + 2 + (mix(this.seed, suite, 2) % Math.max(3, Math.floor(span / 6)));
    if (this.editsLanded < breaksAt || this.editsLanded >= heals) return 0;
    return 1 + (mix(this.seed, suite, this.editsLanded) % 3);
  }

  private suiteName(suite: number): string {
    const file = this.tree.files[mix(this.seed, suite, 3) % this.tree.files.length]!;
    return `tests/${file.path.replace(/\.ts$/, '')}.test.ts`;
  }

  private testRun(): string {
    const lines = [`> vitest run (stage ${this.stage}, ${this.editsLanded} edits in)`, ''];
    const failures: string[] = [];
    let failedSuites = 0;
    let failedTests = 0;
    let tests = 0;
    for (let suite = 0; suite < TEST_SUITES; suite += 1) {
      const name = this.suiteName(suite);
      const count = 5 + (mix(this.seed, suite, 4) % 26);
      const failed = this.suiteFailures(suite);
      const ms = 8 + (mix(this.seed, suite, this.stage, this.editsLanded) % 90);
      tests += count;
      if (failed === 0) {
        lines.push(` ✓ ${name} (${count} tests) ${ms}ms`);
        continue;
      }
      failedSuites += 1;
      failedTests += failed;
      lines.push(` ✗ ${name} (${count} tests | ${failed} failed) ${ms}ms`);
      for (let index = 0; index < failed; index += 1) {
        const code = mix(this.seed, suite, index, this.editsLanded);
        failures.push(
          `FAIL ${name} > case ${1 + (code % count)}: expected "issue_${code % 9973}" to be "issue_${(code >>> 8) % 9973}"`,
          `  at ${name.replace(/^tests\//, 'src/').replace(/\.test\.ts$/, '.ts')}:${20 + (code % 400)}:${1 + ((code >>> 4) % 40)}`,
        );
      }
    }
    // A runner prints the first failures in full and counts the rest, as vitest's bail-out does.
    const shown = failures.slice(0, 2 * FAILURES_SHOWN);
    const more = (failures.length - shown.length) / 2;
    lines.push('', ...shown, ...(more > 0 ? [`… and ${more} more failures`] : []), '');
    lines.push(
      ` Test Files  ${failedSuites > 0 ? `${failedSuites} failed | ` : ''}${TEST_SUITES - failedSuites} passed (${TEST_SUITES})`,
      `      Tests  ${failedTests > 0 ? `${failedTests} failed | ` : ''}${tests - failedTests} passed (${tests})`,
      `   Duration  ${(1 + (mix(this.seed, this.stage, this.editsLanded) % 4000) / 1000).toFixed(2)}s`,
    );
    return lines.join('\n');
  }

  private logLine(index: number): string {
    const code = mix(this.seed, index, 5);
    const seconds = 8 * 3600 + index * 7;
    const time = `${String(Math.floor(seconds / 3600)).padStart(2, '0')}:${String(Math.floor(seconds / 60) % 60).padStart(2, '0')}:${String(seconds % 60).padStart(2, '0')}.${String(code % 1000).padStart(3, '0')}`;
    const level = code % 11 === 0 ? 'WARN' : 'INFO';
    const route = ['/api/parse', '/api/schema', '/api/issues', '/health', '/api/refine'][code % 5];
    return `2026-12-06T${time}Z ${level} req=${(code >>> 3).toString(16).padStart(7, '0')} GET ${route} ${200 + (code % 7 === 0 ? 300 : 0)} ${1 + (code % 240)}ms`;
  }

  private logTail(): string {
    const total = LOG_LINES_AT_START + this.stage * LOG_LINES_PER_STAGE + this.editsLanded * LOG_LINES_PER_EDIT;
    const lines: string[] = [];
    for (let index = Math.max(0, total - 40); index < total; index += 1) lines.push(this.logLine(index));
    return lines.join('\n');
  }

  private gitStatus(): string {
    if (this.changed.size === 0) return '(clean)';
    const lines = [...this.changed.keys()].sort().map((path) => ` M src/${path}`);
    const inserted = [...this.editCounts.values()].reduce((sum, count) => sum + count, 0);
    lines.push(`${this.changed.size} files changed, ${inserted} insertions(+)`);
    return lines.join('\n');
  }

  private listing(directory: string): string {
    const prefix = directory === '' || directory === '.' ? '' : `${directory.replace(/\/$/, '')}/`;
    const entries = this.tree.files.filter((file) => file.path.startsWith(prefix)).slice(0, 60);
    if (entries.length === 0) return `ls: cannot access '${directory}': No such file or directory`;
    const lines = [`total ${entries.length}`];
    for (const file of entries) {
      const text = this.changed.get(file.path);
      const bytes = text === undefined ? file.bytes : Buffer.byteLength(text, 'utf8');
      const edited = this.lastEditAt.get(file.path);
      const stamp =
        edited === undefined
          ? 'Nov 30 17:02'
          : `Dec  6 ${String(9 + Math.floor(edited / 60)).padStart(2, '0')}:${String(edited % 60).padStart(2, '0')}`;
      lines.push(`-rw-r--r-- 1 dev dev ${String(bytes).padStart(7)} ${stamp} ${file.path.slice(prefix.length)}`);
    }
    return lines.join('\n');
  }

  private typeCheck(): string {
    const errors: string[] = [];
    for (const [path, at] of this.lastEditAt) {
      // A file edited in the last few edits has not been fixed up yet.
      if (this.editsLanded - at >= 3) continue;
      const code = mix(this.seed, textHash(path), at);
      errors.push(
        `src/${path}(${1 + (code % 300)},${1 + ((code >>> 9) % 40)}): error TS${2300 + (code % 500)}: Type 'Issue${code % 97}' is not assignable to type 'ParseResult${(code >>> 5) % 97}'.`,
      );
    }
    if (errors.length === 0) return 'tsc: no errors';
    return [
      ...errors.sort(),
      '',
      `Found ${errors.length} error${errors.length === 1 ? '' : 's'} in ${errors.length} file${errors.length === 1 ? '' : 's'}.`,
    ].join('\n');
  }
}
