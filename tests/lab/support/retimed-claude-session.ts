import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { replayTranscript } from '../../../lab/replay/replay-transcript.ts';
import type { RequestRow } from '../../../lab/report/lab-records.ts';

const fixtures = resolve(import.meta.dirname, '../../fixtures/transcripts');
const START = Date.parse('2025-10-01T09:00:00.000Z');

/** How a re-timed session is cut and timed, and what lifetime its cache writes claim. */
export interface RetimedSessionOptions {
  readonly lineCount: number;
  /** The response from which on `idleMinutes` more have passed. */
  readonly idleBefore: number;
  readonly idleMinutes: number;
  /** Mark every cache write 5-minute or 1-hour, as Claude Code does; as recorded when absent. */
  readonly cacheWrites?: '5m' | '1h';
}

/**
 * The first `lineCount` lines of a real Claude Code session, re-timed: response k (counted by
 * message id) and the lines after it until the next response happen at START + k·10 s, plus
 * `idleMinutes` from response `idleBefore` on. One idle gap, everything else well inside a
 * 300 s cache. Written to a file of its own, whose path is returned.
 */
export function retimedClaudeSession(options: RetimedSessionOptions): string {
  const { lineCount, idleBefore, idleMinutes, cacheWrites } = options;
  const lines = readFileSync(join(fixtures, 'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl'), 'utf8')
    .split('\n')
    .slice(0, lineCount);
  const seen = new Set<string>();
  const out = lines.map((text) => {
    if (text.trim().length === 0) return text;
    const line = JSON.parse(text);
    if (line.type === 'assistant' && line.isSidechain !== true && line.message?.model !== '<synthetic>')
      seen.add(line.message?.id ?? line.uuid);
    const response = Math.max(0, seen.size - 1);
    const time = START + response * 10_000 + (response >= idleBefore ? idleMinutes * 60_000 : 0);
    if ('timestamp' in line) line.timestamp = new Date(time).toISOString();
    const usage = line.message?.usage;
    if (cacheWrites !== undefined && usage?.cache_creation !== undefined) {
      const written = usage.cache_creation_input_tokens ?? 0;
      usage.cache_creation = {
        ephemeral_5m_input_tokens: cacheWrites === '5m' ? written : 0,
        ephemeral_1h_input_tokens: cacheWrites === '1h' ? written : 0,
      };
    }
    return JSON.stringify(line);
  });
  const path = join(mkdtempSync(join(tmpdir(), 'replay-retimed-')), 'session.jsonl');
  writeFileSync(path, `${out.join('\n')}\n`);
  return path;
}

/** The agent requests an arm's provider answered, in order. */
export function agentRows(report: Awaited<ReturnType<typeof replayTranscript>>, arm: string): RequestRow[] {
  return report.run.arms
    .find((result) => result.arm === arm)!
    .rows.filter((row) => row.purpose !== 'summary' && !row.rejected);
}
