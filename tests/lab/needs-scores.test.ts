import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { consolidationBrief, toolBrief } from '../../core/folds/briefs.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { placeholderText } from '../../core/render/window-text.ts';
import { spillLine } from '../../core/spill/spill-plan.ts';
import { extractNeeds } from '../../lab/replay/needs/extract-needs.ts';
import { NeedsTally } from '../../lab/replay/needs/needs-tally.ts';
import { RECORDED_ROW, recordedSummaryRows, STANDIN_ROW } from '../../lab/replay/needs/recorded-windows.ts';
import { peekPages, type RecoveryAbilities, scoreNeed } from '../../lab/replay/needs/score-need.ts';
import { windowOfMessages, windowOfText } from '../../lab/replay/needs/window-view.ts';
import type { RequestRow } from '../../lab/report/lab-records.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

const FOLD: RecoveryAbilities = { peek: true, search: true };
const COMPACTION: RecoveryAbilities = { peek: false, search: false };

// A recording where the model greps, reads a file, runs the tests, edits another file, then
// (response 4) uses one piece of each tool result.
const grepCall = { id: 'c1', name: 'bash', arguments: { command: 'grep -rn Widget src' } };
const readCall = { id: 'c2', name: 'read', arguments: { path: 'src/widgets/factory.ts' } };
const testCall = { id: 'c3', name: 'bash', arguments: { command: 'npm test' } };
const editCall = { id: 'c4', name: 'edit', arguments: { path: 'src/widgets/other.ts', newText: 'x' } };
const entries = [
  userEntry('u1', 'fix the widget tests'),
  assistantEntry('a1', 'Searching.', [grepCall]),
  // Long enough that a brief shows only its ends, not the piece in its middle.
  toolResultEntry('r1', 'c1', 'bash', `${'a'.repeat(900)}\nsrc/widgets/registry.ts:4: Widget\n${'b'.repeat(900)}`),
  assistantEntry('a2', 'Reading the factory.', [readCall]),
  toolResultEntry('r2', 'c2', 'read', 'export const WIDGET_LIMIT_V3 = 512;\nexport function makeWidgetFactory() {}'),
  assistantEntry('a3', 'Running the tests.', [testCall]),
  toolResultEntry('r3', 'c3', 'bash', `${'x'.repeat(400)}\nrun 77215 failed\n${'y'.repeat(400)}`),
  assistantEntry('a4', 'Editing the other file.', [editCall]),
  toolResultEntry('r4', 'c4', 'edit', 'ok'),
  assistantEntry('a5', 'So src/widgets/registry.ts, WIDGET_LIMIT_V3 and run 77215 matter.'),
];
const recording = extractNeeds(entries);
const need = (piece: string) => {
  const found = recording.needs.find((candidate) => candidate.piece === piece && candidate.response === 4);
  if (found === undefined) throw new Error(`no need ${piece}`);
  return found;
};
const placeholder = (id: string, kind: 'tool' | 'chapter' | 'consolidation', brief: string) =>
  placeholderText({
    foldId: id,
    kind,
    brief,
    sourceChars: 100,
    entryCount: 2,
    sourceSha256: 'a'.repeat(64),
    toolName: 'pi_fold',
  });

describe('each need scored against a window where its case is known', () => {
  it('finds the three needs of the last response', () => {
    expect(recording.needs.filter((candidate) => candidate.response === 4).map((candidate) => candidate.piece)).toEqual(
      expect.arrayContaining(['src/widgets/registry.ts', 'WIDGET_LIMIT_V3', '77215']),
    );
  });

  it('visible: the piece is in the window, in any words', () => {
    const window = windowOfText('notes: WIDGET_LIMIT_V3 is the cap');
    expect(scoreNeed(need('WIDGET_LIMIT_V3'), window, recording, COMPACTION).score).toBe('visible');
  });

  it('one call away: a tool fold in view names the call, and a peek of it is one call', () => {
    const brief = toolBrief(entries[1]!, [entries[2]!]);
    const window = windowOfText(`user: fix the widget tests\n${placeholder('fold_grep', 'tool', brief)}`);
    const scored = scoreNeed(need('src/widgets/registry.ts'), window, recording, FOLD);
    expect(scored).toMatchObject({ score: 'oneCallAway', calls: 1, readBack: { key: 'fold_grep' } });
    // The same window for an arm that cannot peek: the placeholder is words, not a way back.
    expect(scoreNeed(need('src/widgets/registry.ts'), window, recording, COMPACTION).score).toBe('lost');
  });

  it('one call away through a consolidation: its child line names the call, two peeks billed', () => {
    const child = { id: 'fold_grep', kind: 'tool' as const, brief: toolBrief(entries[1]!, [entries[2]!]) };
    const window = windowOfText(placeholder('fold_all', 'consolidation', consolidationBrief([child])));
    expect(scoreNeed(need('src/widgets/registry.ts'), window, recording, FOLD)).toMatchObject({
      score: 'oneCallAway',
      calls: 2,
    });
  });

  it('one call away: a spilled result in view, its pointer reads the middle back', () => {
    const text = entries[6]!.text;
    const pointer = { id: 'sp_1', sha256: 'b'.repeat(64), bytes: text.length, headBytes: 120, tailBytes: 120 };
    const spilled = `${text.slice(0, 120)}\n${spillLine(pointer, { kind: 'result', toolName: 'bash' }, 'pi_fold')}\n${text.slice(-120)}`;
    const window = windowOfMessages([
      {
        role: 'toolResult',
        toolCallId: 'c3',
        toolName: 'bash',
        content: [{ type: 'text', text: spilled }],
        isError: false,
        timestamp: 0,
      },
    ]);
    expect(scoreNeed(need('77215'), window, recording, FOLD)).toMatchObject({ score: 'oneCallAway', calls: 1 });
  });

  it('searchable: folded in a chapter whose brief does not name the call', () => {
    const window = windowOfText(placeholder('fold_ch', 'chapter', 'tools: bash×2, read×1'));
    expect(scoreNeed(need('77215'), window, recording, FOLD).score).toBe('searchable');
    expect(scoreNeed(need('77215'), window, recording, COMPACTION).score).toBe('lost');
  });

  it('re-obtainable: a read of a file nothing touched since, its path in view', () => {
    const window = windowOfText('summary: we read src/widgets/factory.ts');
    expect(scoreNeed(need('WIDGET_LIMIT_V3'), window, recording, COMPACTION)).toMatchObject({
      score: 'reobtainable',
      calls: 1,
    });
    // Without its path in view the model cannot know which file to read again.
    expect(scoreNeed(need('WIDGET_LIMIT_V3'), windowOfText('summary: nothing'), recording, COMPACTION).score).toBe(
      'lost',
    );
  });

  it('not re-obtainable once a later call named the file', () => {
    const edited = [
      ...entries.slice(0, 7),
      assistantEntry('a4', 'Editing the factory.', [
        { id: 'c4', name: 'edit', arguments: { path: 'src/widgets/factory.ts', newText: 'x' } },
      ]),
      ...entries.slice(8),
    ];
    const changed = extractNeeds(edited);
    const widgetLimit = changed.needs.find((candidate) => candidate.piece === 'WIDGET_LIMIT_V3')!;
    const window = windowOfText('summary: we read src/widgets/factory.ts');
    expect(scoreNeed(widgetLimit, window, changed, COMPACTION).score).toBe('lost');
  });

  it('bills one extra request per request whose needs take calls, one call per fold however many needs it serves', () => {
    const tally = new NeedsTally(recording, FOLD);
    const brief = toolBrief(entries[1]!, [entries[2]!]);
    tally.observe(4, windowOfText(placeholder('fold_grep', 'tool', brief)));
    const rows: RequestRow[] = [0, 1, 2, 3, 4].map((index) => ({
      arm: 'fold',
      index,
      promptTokens: 10_000,
      cacheRead: 9_000,
      freshInput: 1_000,
      output: 100,
      costUsd: 0.01,
      longContext: false,
      rejected: false,
      event: 'append',
      purpose: 'agent',
      hookMs: 0,
    }));
    const row = tally.row('fold', 'arm', { rows, prices: PRICE_LISTS['gpt-5.6-ledger']!, tokenScale: 1 });
    expect(row.counts).toMatchObject({ oneCallAway: 1, searchable: 2, visible: 0 });
    expect(row.recovery).toMatchObject({ calls: 1, requests: 1 });
    expect(row.recovery!.usd).toBeGreaterThan(0);
    expect(row.recovery!.tokens).toBeGreaterThan(40);
  });
});

describe("the recording's own windows under its host's summaries", () => {
  it('scores the real summary and the stand-in on the same windows', () => {
    const compactions = [{ fromEntry: 9, firstKeptEntry: 9, summary: 'We looked at src/widgets/registry.ts.' }];
    const [real, standIn] = recordedSummaryRows(entries, compactions, recording);
    expect(real!.name).toBe(RECORDED_ROW);
    expect(real!.counts).toMatchObject({ visible: 1, reobtainable: 0, lost: 2 });
    // The stand-in keeps the names the model wrote: its calls' paths and commands, not the tools' output.
    expect(standIn!.name).toBe(STANDIN_ROW);
    expect(standIn!.counts).toMatchObject({ visible: 0, reobtainable: 1, lost: 2 });
  });
});

describe('what a peek reads back', () => {
  it('the whole source when it fits the default budget, else head and tail, then pages to the piece', () => {
    expect(peekPages('short source with PIECE_42', 'PIECE_42')).toEqual({
      calls: 1,
      text: 'short source with PIECE_42',
    });
    const head = 'h'.repeat(9_600);
    const tail = 't'.repeat(6_400);
    const inHead = `${'h'.repeat(100)}PIECE_42${'h'.repeat(9_492)}${'m'.repeat(30_000)}${tail}`;
    expect(peekPages(inHead, 'PIECE_42').calls).toBe(1);
    const inMiddle = `${head}${'m'.repeat(20_000)}PIECE_42${'m'.repeat(10_000)}${tail}`;
    const paged = peekPages(inMiddle, 'PIECE_42');
    // 20,008 bytes past the head: two pages of 16,000 after the first peek.
    expect(paged.calls).toBe(3);
    expect(paged.text.length).toBe(16_000 + 32_000);
  });
});

describe("a recording's own summaries, read from its file", () => {
  const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

  it('Pi: each compaction entry with its summary and the entry it kept from', async () => {
    const session = await loadTranscript(join(fixtures, 'pi-mono/before-compaction.jsonl'));
    const compactions = session.hostCompactions ?? [];
    expect(compactions).toHaveLength(2);
    for (const compaction of compactions) {
      expect(compaction.summary.startsWith('# Context Checkpoint')).toBe(true);
      expect(compaction.firstKeptEntry).toBeLessThan(compaction.fromEntry);
    }
    expect(session.entries[compactions[0]!.firstKeptEntry]!.text).toBe("i reviwed what we have, it's good. continue");
    expect(session.entries[compactions[1]!.firstKeptEntry]!.text).toBe('can leave it');
  });

  it('Pi v3: the same compactions, found by the id of their first kept entry', async () => {
    const v1Path = join(fixtures, 'pi-mono/before-compaction.jsonl');
    const [header, ...body] = readFileSync(v1Path, 'utf8').trimEnd().split('\n');
    // Pi's own migration: ids in order, each entry's parent the one before, and a compaction's
    // first kept index (counted with the header) turned into that entry's id.
    const lines = [JSON.stringify({ ...JSON.parse(header!), version: 3 })];
    body.forEach((text, position) => {
      const entry = JSON.parse(text);
      if (entry.type === 'compaction') {
        entry.firstKeptEntryId = `e${entry.firstKeptEntryIndex - 1}`;
        delete entry.firstKeptEntryIndex;
      }
      lines.push(
        JSON.stringify({ ...entry, id: `e${position}`, parentId: position === 0 ? null : `e${position - 1}` }),
      );
    });
    const v3Path = join(mkdtempSync(join(tmpdir(), 'needs-v3-')), 'session.jsonl');
    writeFileSync(v3Path, `${lines.join('\n')}\n`);
    const v1 = await loadTranscript(v1Path);
    const v3 = await loadTranscript(v3Path);
    expect(v3.format).toBe('pi-v3');
    expect(v3.hostCompactions).toEqual(v1.hostCompactions);
  });

  it('Claude Code: the compact summary message, with nothing before it kept', async () => {
    const session = await loadTranscript(join(fixtures, 'claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl'));
    const [compaction, ...more] = session.hostCompactions ?? [];
    expect(more).toEqual([]);
    expect(compaction!.summary.startsWith('This session is being continued from a previous conversation')).toBe(true);
    expect(session.entries[compaction!.fromEntry]!.text).toBe(compaction!.summary);
    expect(compaction!.firstKeptEntry).toBe(compaction!.fromEntry + 1);
  });
});
