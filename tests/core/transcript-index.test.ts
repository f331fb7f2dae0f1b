import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

const call = (id: string) => ({ id, name: 'read', arguments: { path: id } });

describe('units and closedness', () => {
  it('groups a call with its results, closes it once answered and no longer newest', () => {
    const index = new TranscriptIndex();
    index.ingest([
      userEntry('u1', 'hi'),
      assistantEntry('a1', 'two reads', [call('c1'), call('c2')]),
      toolResultEntry('r1', 'c1', 'read', 'x'),
    ]);
    expect(index.units.map((unit) => unit.kind)).toEqual(['user', 'tool-batch']);
    expect(index.units[1]!.complete).toBe(false);
    index.ingest([
      userEntry('u1', 'hi'),
      assistantEntry('a1', 'two reads', [call('c1'), call('c2')]),
      toolResultEntry('r1', 'c1', 'read', 'x'),
      toolResultEntry('r2', 'c2', 'read', 'y'),
    ]);
    expect(index.units[1]!.complete).toBe(true);
    expect(index.isClosed(1)).toBe(false);
    index.ingest([...index.entries, assistantEntry('a2', 'done')]);
    expect(index.isClosed(1)).toBe(true);
  });

  it('an interrupted batch and an orphan result are protected', () => {
    const index = new TranscriptIndex();
    index.ingest([
      assistantEntry('a1', '', [call('c1'), call('c2')]),
      toolResultEntry('r1', 'c1', 'read', 'x'),
      userEntry('u1', 'stop'),
      toolResultEntry('r2', 'c2', 'read', 'late'),
    ]);
    expect(index.units.map((unit) => [unit.kind, unit.protected])).toEqual([
      ['tool-batch', true],
      ['user', false],
      ['orphan-result', true],
    ]);
  });

  it('follows a branch change and rebuilds only from the divergence', () => {
    const index = new TranscriptIndex();
    const base = [userEntry('u1', 'a'), assistantEntry('a1', 'b'), userEntry('u2', 'c')];
    index.ingest(base);
    const result = index.ingest([base[0]!, base[1]!, userEntry('u3', 'other branch')]);
    expect(result.divergedAt).toBe(2);
    expect(index.entries.map((entry) => entry.id)).toEqual(['u1', 'a1', 'u3']);
    expect(index.positionOf('u2')).toBeUndefined();
  });

  it('sees an earlier entry replaced even when the newest keeps its id and place', () => {
    // A host whose ids do not name their prefix: a message in the middle got a new id.
    const index = new TranscriptIndex();
    const base = [userEntry('u1', 'a'), assistantEntry('a1', 'b'), userEntry('u2', 'c'), assistantEntry('a2', 'd')];
    index.ingest(base);
    const result = index.ingest([
      base[0]!,
      userEntry('a1~edited', 'b, rewritten by another extension'),
      base[2]!,
      base[3]!,
    ]);
    expect(result.divergedAt).toBe(1);
    expect(index.entries.map((entry) => entry.id)).toEqual(['u1', 'a1~edited', 'u2', 'a2']);
    expect(index.positionOf('a1')).toBeUndefined();
  });

  it('a malformed entry is refused by position and changes nothing', () => {
    const index = new TranscriptIndex();
    index.ingest([userEntry('u1', 'a')]);
    const bad = [
      { ...userEntry('u2', 'b'), bytes: 'line one\nline two' },
      { ...userEntry('u2', 'b'), role: 'system' as never },
      { ...toolResultEntry('r1', 'c1', 'read', 'x'), toolCallId: undefined },
      userEntry('u1', 'duplicate id'),
      { ...userEntry('u2', 'b'), sha256: 'nothex' },
    ];
    for (const entry of bad) {
      let caught: unknown;
      try {
        index.ingest([index.entries[0]!, entry]);
      } catch (error) {
        caught = error;
      }
      expect(FoldError.isInstance(caught) && caught.code).toBe('TRANSCRIPT.INVALID_ENTRY');
      expect((caught as Error).message).toMatch(/position 1|appears twice/);
      expect(index.length).toBe(1);
    }
  });
});
