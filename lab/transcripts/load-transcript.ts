import { FoldError } from '../../core/fold-error.ts';
import { ClaudeCodeConverter } from './claude-code-converter.ts';
import { readJsonLines } from './jsonl-lines.ts';
import { PiSessionConverter } from './pi-session-converter.ts';
import type { RecordedSession, SkippedLine } from './recorded-session.ts';

/** Lines read before the format must be known (a Pi header is line 1; Claude Code lines carry a uuid from the start). */
const DETECTION_LINES = 10_000;

type Converter = PiSessionConverter | ClaudeCodeConverter;

/**
 * Read a real transcript (Pi v1/v3 or Claude Code JSONL), detecting the format from its
 * lines and converting each line as it streams in, so a file of hundreds of MB is never
 * held whole (neither as text nor as parsed lines). Malformed lines are counted with their
 * numbers and reasons; the file fails only when its format is unknown or it cannot be read.
 */
export async function loadTranscript(path: string): Promise<RecordedSession> {
  const malformed: SkippedLine[] = [];
  const undetected: { line: number; value: Record<string, unknown> }[] = [];
  let converter: Converter | undefined;
  let linesRead = 0;
  for await (const parsed of readJsonLines(path)) {
    linesRead = parsed.line;
    if ('problem' in parsed) {
      malformed.push({ line: parsed.line, reason: parsed.problem });
      continue;
    }
    if (converter !== undefined) {
      converter.accept(parsed);
      continue;
    }
    if (parsed.value.type === 'session') {
      converter = new PiSessionConverter(path, parsed.value, malformed);
    } else if (typeof parsed.value.sessionId === 'string' || typeof parsed.value.uuid === 'string') {
      converter = new ClaudeCodeConverter(path, malformed);
      undetected.push(parsed);
    } else {
      undetected.push(parsed);
      if (undetected.length < DETECTION_LINES) continue;
      break;
    }
    for (const line of undetected) converter.accept(line);
    undetected.length = 0;
  }
  if (converter !== undefined) return converter.finish(linesRead);
  throw new FoldError('TRANSCRIPT.INVALID_ENTRY', `${path}: not a Pi session (no session header) nor a Claude Code transcript (no sessionId/uuid lines) in ${linesRead} lines read; ${malformed.length} malformed lines`, {
    details: { path, malformed: malformed.length, linesRead },
  });
}
