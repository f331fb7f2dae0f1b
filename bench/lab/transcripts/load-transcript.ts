import { FoldError } from '../../../core/fold-error.ts';
import { convertClaudeCode } from './claude-code-converter.ts';
import { readJsonLines } from './jsonl-lines.ts';
import { convertPiSession } from './pi-session-converter.ts';
import type { RecordedSession, SkippedLine } from './recorded-session.ts';

/**
 * Read a real transcript (Pi v1/v3 or Claude Code JSONL), detecting the format from its
 * lines. Malformed lines are counted with their numbers and reasons; the file fails only
 * when no line at all is usable or the format is unknown.
 */
export async function loadTranscript(path: string): Promise<RecordedSession> {
  const malformed: SkippedLine[] = [];
  const lines: { line: number; value: Record<string, unknown> }[] = [];
  let header: Record<string, unknown> | undefined;
  let claudeLike = false;
  let linesRead = 0;
  for await (const parsed of readJsonLines(path)) {
    linesRead = parsed.line;
    if ('problem' in parsed) {
      malformed.push({ line: parsed.line, reason: parsed.problem });
      continue;
    }
    if (header === undefined && !claudeLike && parsed.value.type === 'session') {
      header = parsed.value;
      continue;
    }
    if (typeof parsed.value.sessionId === 'string' || typeof parsed.value.uuid === 'string') claudeLike = true;
    lines.push(parsed);
  }
  if (header !== undefined) return convertPiSession(path, header, lines, malformed, linesRead);
  if (claudeLike) return convertClaudeCode(path, lines, malformed, linesRead);
  throw new FoldError('TRANSCRIPT.INVALID_ENTRY', `${path}: not a Pi session (no session header) nor a Claude Code transcript (no sessionId/uuid lines); ${malformed.length} malformed lines`, {
    details: { path, malformed: malformed.length },
  });
}
