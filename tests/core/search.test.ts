import { beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '../../core/actions/search-action.ts';
import { FoldError } from '../../core/fold-error.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { serialize } from '../../testing/window-checks.ts';
import { corruptingStore } from '../support/corrupting-store.ts';
import { type DrivenSession, driveSession } from '../support/drive-session.ts';

let driven: DrivenSession;
let runtime: FoldRuntime;

beforeAll(async () => {
  driven = await driveSession({ seed: 31, steps: 90 });
  runtime = driven.runtime;
});

/** Entries that sit inside a fold placed on this branch, in transcript order: what search covers. */
function foldedEntries(): TranscriptEntry[] {
  const inside = new Set<string>();
  for (const record of runtime.view.lattice.allRecords()) {
    const placed = runtime.view.lattice.placement(record.id);
    if (placed === undefined) continue;
    for (let position = placed.first; position <= placed.last; position += 1)
      inside.add(driven.session.entries[position]!.id);
  }
  return driven.session.entries.filter((entry) => inside.has(entry.id));
}

/** An independent answer key: every (entry, byte offset) where `needle` occurs in the original bytes. */
function bruteForce(needle: RegExp): { entryId: string; entryOffset: number }[] {
  const found: { entryId: string; entryOffset: number }[] = [];
  for (const entry of foldedEntries()) {
    for (const match of entry.bytes.matchAll(needle))
      found.push({ entryId: entry.id, entryOffset: Buffer.byteLength(entry.bytes.slice(0, match.index)) });
  }
  return found;
}

async function allPages(call: Record<string, unknown>): Promise<SearchHit[]> {
  const hits: SearchHit[] = [];
  for (let page = 1; page < 1000; page += 1) {
    const answer = await runtime.act({ ...call, page, limit: 7 });
    const data = answer.data as { hits: SearchHit[]; more: boolean };
    expect(data.hits.length).toBeLessThanOrEqual(7);
    hits.push(...data.hits);
    if (!data.more) return hits;
  }
  throw new Error('search never reached its last page');
}

function windowState(): string {
  return JSON.stringify({
    memory: runtime.view.memory.snapshot(runtime.view.lattice.expanded, []),
    frozen: serialize(runtime.view.frozen ?? []),
    causes: [...runtime.view.pendingCauses],
  });
}

async function refusal(call: Record<string, unknown>): Promise<FoldError> {
  const before = windowState();
  const error = await runtime.act(call).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!FoldError.isInstance(error)) throw new Error(`expected a refusal for ${JSON.stringify(call)}`);
  expect(windowState()).toBe(before);
  return error;
}

describe("search: exact recall over every fold's verified source", () => {
  it('finds exactly the occurrences an independent scan of the original bytes finds, in order, across pages', async () => {
    expect(runtime.view.lattice.size).toBeGreaterThan(3);
    const word = /"role":"toolResult"/g;
    const expected = bruteForce(word);
    expect(expected.length).toBeGreaterThan(20);
    const hits = await allPages({ action: 'search', pattern: '"role":"toolResult"' });
    expect(hits.map((hit) => ({ entryId: hit.entryId, entryOffset: hit.entryOffset }))).toEqual(expected);
  });

  it('a regular expression finds what the same expression finds in the originals', async () => {
    const expected = bruteForce(/module_\d+\.c/g);
    expect(expected.length).toBeGreaterThan(5);
    const hits = await allPages({ action: 'search', pattern: 'module_\\d+\\.c', regex: true });
    expect(hits.map((hit) => ({ entryId: hit.entryId, entryOffset: hit.entryOffset }))).toEqual(expected);
  });

  it('every hit names a peek that shows the matched bytes, and its excerpt holds them', async () => {
    const answer = await runtime.act({ action: 'search', pattern: 'socket', limit: 5 });
    const hits = (answer.data as { hits: SearchHit[] }).hits;
    expect(hits.length).toBe(5);
    for (const hit of hits) {
      expect(hit.excerpt).toContain('socket');
      const peek = await runtime.act({
        action: 'peek',
        id: hit.foldId,
        offset: hit.peekOffset,
        bytes: 1024,
        ephemeral: false,
      });
      expect(peek.text.slice(0, 400)).toContain('socket');
      expect(answer.text).toContain(`{"action":"peek","id":"${hit.foldId}","offset":${hit.peekOffset}}`);
    }
  });

  it('a literal with quotes and newlines matches its JSON-escaped form; ignoreCase folds letters', async () => {
    const entry = foldedEntries().find((candidate) => candidate.role === 'toolResult')!;
    const original = JSON.parse(entry.bytes) as { content: { text: string }[] };
    const text = original.content[0]!.text.slice(0, 24);
    const exact = await runtime.act({ action: 'search', pattern: text, limit: 50 });
    expect((exact.data as { hits: SearchHit[] }).hits.some((hit) => hit.entryId === entry.id)).toBe(true);
    const shouted = await runtime.act({ action: 'search', pattern: text.toUpperCase(), ignoreCase: true, limit: 50 });
    expect((shouted.data as { hits: SearchHit[] }).hits.some((hit) => hit.entryId === entry.id)).toBe(true);
    const withNewline = await runtime.act({ action: 'search', pattern: 'no such\ntext "anywhere"' });
    expect((withNewline.data as { hits: SearchHit[] }).hits).toEqual([]);
    expect(withNewline.text).toContain('no matches');
  });

  it('within limits the search to one fold and its children', async () => {
    const fold = runtime.view.visibleFolds[0]!.record;
    const hits = await allPages({ action: 'search', pattern: '"role"', within: fold.id });
    const inside = new Set<string>();
    const visit = (id: string): void => {
      for (const part of runtime.view.lattice.record(id)!.parts)
        part.kind === 'entry' ? inside.add(part.entryId) : visit(part.foldId);
    };
    visit(fold.id);
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(inside.has(hit.entryId)).toBe(true);
  });

  it('never touches the window: the next projection is a pure append', async () => {
    const before = windowState();
    await runtime.act({ action: 'search', pattern: 'alpha' });
    expect(windowState()).toBe(before);
    const next = await runtime.project(driven.session.entries);
    expect(next.ledger.causes).toEqual([]);
  });

  it.each([
    ['a back-reference', { pattern: '(a)\\1', regex: true }, 'ACTION.UNSAFE_PATTERN'],
    ['look-behind', { pattern: '(?<=x)y', regex: true }, 'ACTION.UNSAFE_PATTERN'],
    ['a pattern that matches nothing but the empty string', { pattern: 'q*', regex: true }, 'ACTION.UNSAFE_PATTERN'],
    ['a broken expression', { pattern: '(unclosed', regex: true }, 'ACTION.INVALID_ARGUMENT'],
    ['an empty pattern', { pattern: '' }, 'ACTION.INVALID_ARGUMENT'],
    ['an over-long pattern', { pattern: 'x'.repeat(513) }, 'ACTION.INVALID_ARGUMENT'],
    ['a page of zero', { pattern: 'x', page: 0 }, 'ACTION.INVALID_ARGUMENT'],
    ['a limit above the cap', { pattern: 'x', limit: 51 }, 'ACTION.INVALID_ARGUMENT'],
    ['regex not boolean', { pattern: 'x', regex: 'yes' }, 'ACTION.INVALID_ARGUMENT'],
    ['within an unknown fold', { pattern: 'x', within: '../../etc/passwd' }, 'ACTION.UNKNOWN_ID'],
  ])('refuses %s with a named reason and changes nothing', async (_label, call, code) => {
    const error = await refusal({ action: 'search', ...call });
    expect(error.code).toBe(code);
    expect(error.message).toMatch(/search/);
  });

  it('a catastrophic-backtracking pattern runs in linear time instead of hanging', async () => {
    // On a backtracking engine this pattern over 'aaaa…' takes exponential time.
    const answer = await runtime.act({ action: 'search', pattern: '(a+)+$', regex: true });
    expect(answer.action).toBe('search');
  });

  it('a tampered blob is refused by its hash, never searched (I2)', async () => {
    const { store: corrupting, corrupt } = corruptingStore(
      (bytes) => (bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 1),
    );
    const tampered = await driveSession({ seed: 4, steps: 60, store: corrupting });
    corrupt();
    const error = await tampered.runtime.act({ action: 'search', pattern: 'socket' }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(FoldError.isInstance(error) && error.code).toBe('STORE.HASH_MISMATCH');
  });
});
