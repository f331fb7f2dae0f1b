import { type FileHandle, open } from 'node:fs/promises';
import { FoldError } from '../../core/fold-error.ts';
import { ChatTrajectoryConverter } from './chat-trajectory-converter.ts';
import { ClaudeCodeConverter } from './claude-code-converter.ts';
import { CodexRolloutConverter } from './codex-rollout-converter.ts';
import { readJsonDocument } from './json-document-stream.ts';
import { readJsonLines } from './jsonl-lines.ts';
import { PiSessionConverter } from './pi-session-converter.ts';
import type { RecordedSession, SkippedLine } from './recorded-session.ts';
import { assertReadableTranscript, fileFailure, type TranscriptReadOptions } from './transcript-file.ts';

/** Lines read before the format must be known (a Pi header is line 1; Claude Code and Codex lines say what they are from the start). */
const DETECTION_LINES = 10_000;
/** Bytes read to tell a JSON document (a `.traj.json`) from JSONL. */
const SNIFF_BYTES = 64 * 1024;

type LineConverter = PiSessionConverter | ClaudeCodeConverter | CodexRolloutConverter;

const CODEX_LINE_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'turn_context',
  'event_msg',
  'compacted',
]);
const CODEX_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
]);

/**
 * Read a real transcript, detecting its format, converting each line (or each message of a
 * JSON document) as it streams in, so a file of hundreds of MB is never held whole. Formats:
 * Pi v1/v3 JSONL, Claude Code JSONL, Codex CLI rollouts (current and legacy JSONL), and
 * OpenAI-style chat trajectories (mini-swe-agent `.traj.json`, a JSON document). Malformed
 * lines or messages are counted with their line numbers and reasons; the file fails only
 * when its format is unknown (`TRANSCRIPT.NOT_A_SESSION`) or it cannot be read (a code per
 * cause: see `assertReadableTranscript`), or a line is too long to read.
 */
export async function loadTranscript(path: string, options: TranscriptReadOptions = {}): Promise<RecordedSession> {
  await assertReadableTranscript(path);
  const malformed: SkippedLine[] = [];
  if (await isJsonDocument(path)) return loadChatTrajectory(path, malformed);
  const undetected: { line: number; value: Record<string, unknown> }[] = [];
  let converter: LineConverter | undefined;
  let linesRead = 0;
  for await (const parsed of readJsonLines(path, options)) {
    linesRead = parsed.line;
    if ('problem' in parsed) {
      malformed.push({ line: parsed.line, reason: parsed.problem });
      continue;
    }
    if (converter !== undefined) {
      converter.accept(parsed);
      continue;
    }
    // A whole trajectory on one line (minified): it is already in memory, so convert it at once.
    if (undetected.length === 0 && Array.isArray(parsed.value.messages))
      return chatTrajectoryFromObject(path, parsed, malformed);
    converter = detectLineFormat(path, parsed.value, malformed);
    if (converter instanceof PiSessionConverter) continue;
    undetected.push(parsed);
    if (converter === undefined) {
      if (undetected.length < DETECTION_LINES) continue;
      break;
    }
    for (const line of undetected) converter.accept(line);
    undetected.length = 0;
  }
  if (converter !== undefined) return converter.finish(linesRead);
  throw new FoldError(
    'TRANSCRIPT.NOT_A_SESSION',
    `${path}: not a Pi session (no session header), a Claude Code transcript (no sessionId/uuid lines), a Codex rollout (no session_meta/response_item lines) nor a chat trajectory in ${linesRead} lines read; ${malformed.length} malformed lines`,
    { details: { path, malformed: malformed.length, linesRead } },
  );
}

// Which recorder wrote this line, if the line says. A Pi header comes first and is its own converter's input.
function detectLineFormat(
  path: string,
  value: Record<string, unknown>,
  malformed: SkippedLine[],
): LineConverter | undefined {
  if (value.type === 'session') return new PiSessionConverter(path, value, malformed);
  if (typeof value.type === 'string' && CODEX_LINE_TYPES.has(value.type) && typeof value.payload === 'object')
    return new CodexRolloutConverter(path, 'codex', malformed);
  const bareItem =
    typeof value.type === 'string' &&
    CODEX_ITEM_TYPES.has(value.type) &&
    value.message === undefined &&
    value.uuid === undefined;
  if (value.record_type !== undefined || bareItem) return new CodexRolloutConverter(path, 'codex-legacy', malformed);
  if (typeof value.sessionId === 'string' || typeof value.uuid === 'string')
    return new ClaudeCodeConverter(path, malformed);
  return undefined;
}

function chatTrajectoryFromObject(
  path: string,
  parsed: { line: number; value: Record<string, unknown> },
  malformed: SkippedLine[],
): RecordedSession {
  const converter = new ChatTrajectoryConverter(path, malformed);
  for (const [key, value] of Object.entries(parsed.value))
    if (key !== 'messages') converter.accept({ kind: 'field', key, value, line: parsed.line });
  for (const message of parsed.value.messages as unknown[])
    converter.accept({ kind: 'element', value: message, line: parsed.line });
  return converter.finish(parsed.line);
}

async function loadChatTrajectory(path: string, malformed: SkippedLine[]): Promise<RecordedSession> {
  const converter = new ChatTrajectoryConverter(path, malformed);
  let lastLine = 0;
  for await (const piece of readJsonDocument(path)) {
    lastLine = Math.max(lastLine, piece.line);
    converter.accept(piece);
  }
  const session = converter.finish(lastLine);
  if (session.entries.length === 0) {
    throw new FoldError(
      'TRANSCRIPT.NOT_A_SESSION',
      `${path}: a JSON document with no chat messages (expected a chat trajectory: {messages: [...]} or an array of {role, content}); ${malformed.length} problems${malformed[0] === undefined ? '' : `, first at line ${malformed[0].line}: ${malformed[0].reason}`}`,
      {
        details: { path, malformed: malformed.length },
      },
    );
  }
  return session;
}

/**
 * A JSON document rather than JSONL: it opens with `[`, or its first line is a lone `{`
 * (pretty-printed). A minified trajectory is one JSONL line, handled where lines are read.
 */
async function isJsonDocument(path: string): Promise<boolean> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw fileFailure(path, error);
  }
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0).catch((error: unknown) => {
      throw fileFailure(path, error);
    });
    const start = buffer
      .toString('utf8', 0, bytesRead)
      .replace(/^\uFEFF/, '')
      .trimStart();
    if (start.startsWith('[')) return true;
    const firstLine = start.split('\n', 1)[0]!.trim();
    if (firstLine === '{') return true;
    return false;
  } finally {
    await handle.close();
  }
}
