import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

function scratchFile(name: string, lines: readonly string[]): string {
  const path = join(mkdtempSync(join(tmpdir(), 'replay-streaming-')), name);
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('streaming conversion', () => {
  it('a Pi v3 tree converted line by line keeps only the active branch and reports entries without ids', async () => {
    const [headerLine, ...body] = readFileSync(join(fixtures, 'pi-mono/large-session.jsonl'), 'utf8')
      .trimEnd()
      .split('\n');
    const header = { ...JSON.parse(headerLine!), version: 3 };
    const lines = [JSON.stringify(header)];
    // Entries 300–319 form an abandoned branch off e299; the session continues from e299 at e320.
    body.forEach((text, position) => {
      const parentId = position === 0 ? null : position === 320 ? 'e299' : `e${position - 1}`;
      lines.push(JSON.stringify({ ...JSON.parse(text), id: `e${position}`, parentId }));
      if (position === 500)
        lines.push(JSON.stringify({ type: 'message', message: { role: 'user', content: 'no id' } }));
    });
    const session = await loadTranscript(scratchFile('tree.jsonl', lines));
    expect(session.format).toBe('pi-v3');
    const linear = await loadTranscript(join(fixtures, 'pi-mono/large-session.jsonl'));
    // Linear ids are L<line>: body position p sits on line p + 2 (line 1 is the header).
    const onBranch = linear.entries.filter((entry) => {
      const line = Number(entry.id.slice(1));
      return line < 302 || line >= 322;
    });
    expect(linear.entries.length - onBranch.length).toBeGreaterThan(5);
    expect(session.entries.length).toBe(onBranch.length);
    expect(session.entries.map((entry) => entry.id)).not.toContain('e310');
    const same = session.entries.every((entry, index) => entry.bytes === onBranch[index]!.bytes);
    expect(same).toBe(true);
    expect(session.responses.length).toBe(onBranch.filter((entry) => entry.role === 'assistant').length);
    expect(session.malformedLines).toEqual([{ line: 503, reason: 'v3 entry without an id' }]);
  });

  it('a file of unknown lines is refused after the detection window, not read to its end', async () => {
    const lines = Array.from({ length: 12_000 }, (_, index) => JSON.stringify({ kind: 'metric', value: index }));
    await expect(loadTranscript(scratchFile('metrics.jsonl', lines))).rejects.toThrow(
      /not a Pi session .* in 10000 lines read/,
    );
  });
});
