import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

/** Count model responses straight from the file, independently of the converter. */
function responsesInFile(path: string): number {
  const ids = new Set<string>();
  let count = 0;
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    let line: Record<string, any>;
    try {
      line = JSON.parse(text);
    } catch {
      continue;
    }
    if (line.type === 'message' && line.message?.role === 'assistant') count += 1;
    if (line.type === 'assistant' && line.isSidechain !== true && line.message?.model !== '<synthetic>')
      ids.add(line.message?.id ?? line.uuid);
  }
  return count + ids.size;
}

describe('real transcripts convert to engine entries', () => {
  it.each([
    ['pi-mono/before-compaction.jsonl', 'pi-v1', 0],
    ['pi-mono/large-session.jsonl', 'pi-v1', 0],
    ['claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl', 'claude-code', 0],
    ['claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl', 'claude-code', 1],
  ])('%s', async (file, format, minimumMalformed) => {
    const path = `${fixtures}/${file}`;
    const session = await loadTranscript(path);
    expect(session.format).toBe(format);
    expect(session.responses.length).toBe(responsesInFile(path));
    expect(session.malformedLines.length).toBeGreaterThanOrEqual(minimumMalformed);
    for (const skipped of session.malformedLines) expect(skipped.reason.length).toBeGreaterThan(5);
    // Every entry is one the engine accepts as it is.
    const index = new TranscriptIndex();
    index.ingest(session.entries);
    expect(index.length).toBe(session.entries.length);
    expect(index.units.filter((unit) => unit.kind === 'tool-batch').length).toBeGreaterThan(50);
  });

  it('the redacted line of the Claude Code archive is reported by number, not fatal', async () => {
    const session = await loadTranscript(`${fixtures}/claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl`);
    expect(session.malformedLines.map((skipped) => skipped.line)).toContain(876);
    expect(session.compactions).toBe(1);
  });

  it('a file that is neither format is refused by name', async () => {
    await expect(loadTranscript(resolve(import.meta.dirname, '../../package.json'))).rejects.toThrow(
      /TRANSCRIPT.NOT_A_SESSION: .*package.json: a JSON document with no chat messages/,
    );
    await expect(loadTranscript('/nonexistent/session.jsonl')).rejects.toThrow(
      /TRANSCRIPT.NOT_FOUND: no transcript at \/nonexistent\/session.jsonl/,
    );
  });
});
