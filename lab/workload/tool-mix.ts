import type { TranscriptEntry } from '../../ports/transcript-entry.ts';

/**
 * What kind of traffic a tool call is, as far as losing it goes:
 * - `shell`: a command whose output depends on a state that moves (a test run, a log, a listing);
 * - `edit`: an edit or write, which moves the state of a file;
 * - `read-changed`: a read of a file that a later edit or write of the session names;
 * - `read-unchanged`: a read of a file that nothing later in the session edits;
 * - `other`: searches, listings by a dedicated tool, to-do lists, fetches, sub-agents.
 * Only a `read-unchanged` result can be had again as it was by calling the tool again.
 */
export type CallKind = 'shell' | 'edit' | 'read-changed' | 'read-unchanged' | 'other';

export const CALL_KINDS: readonly CallKind[] = ['shell', 'edit', 'read-changed', 'read-unchanged', 'other'];

/** Tool names of the hosts the lab reads (Pi, Claude Code, Codex), by the kind their calls are. */
const SHELL_TOOLS = new Set(['bash', 'shell', 'exec_command', 'local_shell_call', 'bashoutput', 'run_terminal_cmd']);
const EDIT_TOOLS = new Set([
  'edit',
  'write',
  'multiedit',
  'notebookedit',
  'apply_patch',
  'str_replace_based_edit_tool',
]);
const READ_TOOLS = new Set(['read', 'notebookread', 'view', 'read_file']);
const PATH_ARGUMENTS = ['path', 'file_path', 'filePath', 'notebook_path'];

/** A reference is far when the text it points to arrived this many chars of transcript earlier. */
export const FAR_REFERENCE_CHARS = 100_000;

/** Counts of one transcript, or of several pooled. */
export interface ToolMixCounts {
  /** Tool calls by kind. */
  readonly calls: Record<CallKind, number>;
  /**
   * The model's references back to tool output, by the kind of call whose result first
   * brought the referenced token: one per assistant message and distinct token.
   */
  readonly references: Record<CallKind, number>;
  /** Of those, the ones to a token that arrived more than `FAR_REFERENCE_CHARS` earlier. */
  readonly farReferences: Record<CallKind, number>;
}

const zero = (): Record<CallKind, number> => ({
  shell: 0,
  edit: 0,
  'read-changed': 0,
  'read-unchanged': 0,
  other: 0,
});

/**
 * The tokens a reference is counted on: paths (two segments or more, or a name with a source
 * file's extension), identifiers that carry a digit, numbers, hex hashes; 5 chars at least.
 * Short tokens (four-digit numbers are mostly years and ports), plain words and member
 * accesses (`this.agent`) are left out: they recur by chance or by the language, not because
 * the model looked back.
 */
const EXTENSIONS =
  'ts|tsx|js|jsx|mjs|cjs|json|jsonl|md|py|rs|go|java|kt|c|h|cc|cpp|hpp|cs|rb|php|sh|yml|yaml|toml|lock|txt|html|css|scss|sql|xml|log|ini|cfg|conf|desktop|svg|png';
const TOKEN = new RegExp(
  [
    String.raw`(?:[\w.@:-]*\/)?[\w.@:-]+(?:\/[\w.@:-]+)+`,
    String.raw`(?:[\w.@:-]*\/)*[\w.@-]+\.(?:${EXTENSIONS})\b`,
    String.raw`\b[A-Za-z_][\w-]*\d[\w-]*\b`,
    String.raw`\b\d{4,}\b`,
    String.raw`\b[0-9a-f]{7,64}\b`,
  ].join('|'),
  'g',
);
const MIN_TOKEN_CHARS = 5;

/** The distinct tokens of a text that could be a reference (see `TOKEN`). */
export function referenceTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of text.matchAll(TOKEN)) {
    const token = match[0].replace(/[.,:;)]+$/, '');
    if (token.length >= MIN_TOKEN_CHARS) tokens.add(token);
  }
  return tokens;
}

function pathOf(argumentsJson: string, toolName: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const record = parsed as Record<string, unknown>;
  for (const key of PATH_ARGUMENTS) if (typeof record[key] === 'string') return normalPath(record[key] as string);
  if (toolName === 'apply_patch' || typeof record.input === 'string' || typeof record.patch === 'string') {
    const patch = String(record.input ?? record.patch ?? '');
    const named = /\*\*\* (?:Update|Add) File: (\S+)/.exec(patch);
    if (named !== null) return normalPath(named[1]!);
  }
  return undefined;
}

function normalPath(path: string): string {
  return path.replace(/^\.\//, '');
}

/** Two spellings of one file: equal, or one absolute path ending in the other. */
function samePath(a: string, b: string): boolean {
  return a === b || a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}

/** The kind of a call by its tool's name alone (reads are split later, once the session's edits are known). */
function kindByName(name: string): CallKind | 'read' {
  const lower = name.toLowerCase();
  if (SHELL_TOOLS.has(lower)) return 'shell';
  if (EDIT_TOOLS.has(lower)) return 'edit';
  if (READ_TOOLS.has(lower)) return 'read';
  return 'other';
}

interface CallSeen {
  kind: CallKind | 'read';
  readonly path: string | undefined;
  readonly position: number;
}

/**
 * Count one transcript: each tool call's kind, and each later reference the model makes (in
 * its text or its call arguments) to a token that reached it first through a tool result and
 * that neither the person nor the model had written before. A read is `read-changed` when an
 * edit or write after it names the same path.
 */
export function countToolMix(entries: readonly TranscriptEntry[]): ToolMixCounts {
  const calls = new Map<string, CallSeen>();
  const edits: { path: string; position: number }[] = [];
  entries.forEach((entry, position) => {
    for (const call of entry.toolCalls ?? []) {
      const kind = kindByName(call.name);
      const path = pathOf(call.argumentsJson, call.name.toLowerCase());
      calls.set(call.id, { kind, path, position });
      if (kind === 'edit' && path !== undefined) edits.push({ path, position });
    }
  });
  for (const call of calls.values()) {
    if (call.kind !== 'read') continue;
    const { path, position } = call;
    call.kind =
      path !== undefined && edits.some((edit) => edit.position > position && samePath(edit.path, path))
        ? 'read-changed'
        : 'read-unchanged';
  }
  const counts = { calls: zero(), references: zero(), farReferences: zero() };
  for (const call of calls.values()) counts.calls[call.kind as CallKind] += 1;

  const authored = new Set<string>();
  const origin = new Map<string, { kind: CallKind; offset: number }>();
  let offset = 0;
  for (const entry of entries) {
    if (entry.role === 'toolResult') {
      const call = entry.toolCallId === undefined ? undefined : calls.get(entry.toolCallId);
      const kind = (call?.kind ?? 'other') as CallKind;
      for (const token of referenceTokens(entry.text))
        if (!authored.has(token) && !origin.has(token)) origin.set(token, { kind, offset });
    } else {
      const text = [entry.text, ...(entry.toolCalls ?? []).map((call) => call.argumentsJson)].join('\n');
      for (const token of referenceTokens(text)) {
        const source = origin.get(token);
        if (entry.role === 'assistant' && source !== undefined) {
          counts.references[source.kind] += 1;
          if (offset - source.offset > FAR_REFERENCE_CHARS) counts.farReferences[source.kind] += 1;
        }
        if (source === undefined) authored.add(token);
      }
    }
    offset += entry.text.length + (entry.toolCalls ?? []).reduce((sum, call) => sum + call.argumentsJson.length, 0);
  }
  return counts;
}

/** Several transcripts' counts, summed. */
export function poolToolMix(all: readonly ToolMixCounts[]): ToolMixCounts {
  const pooled = { calls: zero(), references: zero(), farReferences: zero() };
  for (const counts of all)
    for (const kind of CALL_KINDS) {
      pooled.calls[kind] += counts.calls[kind];
      pooled.references[kind] += counts.references[kind];
      pooled.farReferences[kind] += counts.farReferences[kind];
    }
  return pooled;
}

/** Each kind's share of a count (0 when the count is empty). */
export function shares(counts: Record<CallKind, number>): Record<CallKind, number> {
  const total = CALL_KINDS.reduce((sum, kind) => sum + counts[kind], 0);
  const result = zero();
  for (const kind of CALL_KINDS) result[kind] = total === 0 ? 0 : counts[kind] / total;
  return result;
}

/**
 * Split `total` items over the kinds in proportion to `weights` by largest remainder, so the
 * counts sum to `total` exactly and each is within one of its exact share.
 */
export function apportion(total: number, weights: Record<CallKind, number>): Record<CallKind, number> {
  const share = shares(weights);
  const result = zero();
  const remainders: { kind: CallKind; rest: number }[] = [];
  let given = 0;
  for (const kind of CALL_KINDS) {
    const exact = total * share[kind];
    result[kind] = Math.floor(exact);
    given += result[kind];
    remainders.push({ kind, rest: exact - result[kind] });
  }
  remainders.sort((a, b) => b.rest - a.rest || CALL_KINDS.indexOf(a.kind) - CALL_KINDS.indexOf(b.kind));
  for (let index = 0; given < total && index < remainders.length; index += 1, given += 1)
    result[remainders[index]!.kind] += 1;
  return result;
}
