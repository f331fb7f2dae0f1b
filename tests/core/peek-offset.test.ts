import { beforeAll, describe, expect, it } from 'vitest';
import type { FoldRecord } from '../../ports/fold-records.ts';
import { type DrivenSession, driveSession } from '../support/drive-session.ts';

// peek's `offset` is a UTF-8 byte offset into the peek text itself (the fold's one-level
// document: its header line, each entry's header line and exact bytes, child folds as one
// line), not into the fold's source bytes. That is the offset a peek's "continue with" line and
// a search hit's peekOffset hand out, and what docs/vercel-ai.md and the tool schemas say.

let driven: DrivenSession;

beforeAll(async () => {
  driven = await driveSession({ seed: 31, steps: 90 });
});

/** A fold with at least two raw entries, so the second entry's offsets differ in the two readings. */
function foldWithEntries(): FoldRecord {
  const record = [...driven.runtime.view.lattice.allRecords()].find(
    (candidate) => candidate.parts.filter((part) => part.kind === 'entry').length >= 2,
  );
  if (record === undefined) throw new Error('the driven session has no fold with two raw entries');
  return record;
}

/** The peek text without its trailing `[bytes …]` line. */
const body = (text: string) => text.slice(0, text.lastIndexOf('\n['));

describe('peek offset: bytes into the peek text, headers included', () => {
  it('offset 0 is the fold header, and each entry is read back exactly at its byte position in the peek text', async () => {
    const { runtime, session } = driven;
    const record = foldWithEntries();
    const whole = body(
      (await runtime.act({ action: 'peek', id: record.id, offset: 0, bytes: 200_000, ephemeral: false })).text,
    );
    expect(whole.startsWith(`fold ${record.id} | `)).toBe(true);
    let checked = 0;
    for (const part of record.parts) {
      if (part.kind !== 'entry') continue;
      const entry = session.entries.find((candidate) => candidate.id === part.entryId)!;
      const header = `--- entry ${part.entryId} | sha256 ${part.sha256.slice(0, 16)} verified\n`;
      const at = whole.indexOf(header);
      expect(at).toBeGreaterThan(0);
      const offset = Buffer.byteLength(whole.slice(0, at + header.length));
      const slice = await runtime.act({
        action: 'peek',
        id: record.id,
        offset,
        bytes: Math.max(1024, Buffer.byteLength(entry.bytes)),
        ephemeral: false,
      });
      expect(body(slice.text).startsWith(entry.bytes)).toBe(true);
      expect(slice.data.shown).toMatchObject({ from: offset });
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('an offset into the source bytes (entries concatenated, no headers) does not land on that entry', async () => {
    const { runtime, session } = driven;
    const record = foldWithEntries();
    const [first, second] = record.parts.filter((part) => part.kind === 'entry');
    const firstBytes = session.entries.find((candidate) => candidate.id === first!.entryId)!.bytes;
    const secondBytes = session.entries.find((candidate) => candidate.id === second!.entryId)!.bytes;
    const sourceOffset = Buffer.byteLength(firstBytes);
    const slice = await runtime.act({
      action: 'peek',
      id: record.id,
      offset: sourceOffset,
      bytes: 1024,
      ephemeral: false,
    });
    expect(body(slice.text).startsWith(secondBytes.slice(0, 64))).toBe(false);
  });
});
