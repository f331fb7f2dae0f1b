import { describe, expect, it } from 'vitest';
import { readableText } from '../../adapters/hosts/pi/message-entries.ts';
import type { ProjectedMessage } from '../../ports/projected-message.ts';
import { driveSession } from '../support/drive-session.ts';
import { piAssistant } from '../support/pi-assistant.ts';

const FOLD_ID = /fold_[0-9a-f]{24}/g;

type Synthetic = Extract<ProjectedMessage, { kind: 'synthetic' }>;

function synthetic(messages: readonly ProjectedMessage[], origin: Synthetic['origin']): Synthetic[] {
  return messages.filter((message): message is Synthetic => message.kind === 'synthetic' && message.origin === origin);
}

function idsIn(text: string): string[] {
  return [...text.matchAll(FOLD_ID)].map((match) => match[0]);
}

/** The folds a notice lists (its closing example call names one of them again). */
function listedIn(notice: Synthetic): string[] {
  return idsIn(notice.text.split('\nwrite one with')[0]!);
}

/** Every message of `origin` in every window a driven session sent. */
async function everySynthetic(seed: number, origin: Synthetic['origin']): Promise<Synthetic[]> {
  const { sink } = await driveSession({ seed, steps: 120 });
  return sink.projections.flatMap((projection) => synthetic(projection.messages, origin));
}

/**
 * What pi-fold writes into the window rides every later request, so it says each thing once
 * (docs/behaviour.md B3.5, B5.2, B5.3): no fold id is repeated where the window already shows it.
 */
describe('the words pi-fold writes say each thing once', () => {
  it('notices standing in one window never list the same fold twice', async () => {
    // A wide floor on a large budget: commits land some marks and leave others waiting, so a
    // later notice meets folds an earlier one, still in the window, already lists.
    const { sink } = await driveSession({
      seed: 1,
      steps: 150,
      settings: { rawFloorTokens: 60_000, providerInputBudget: 272_000 },
    });
    let windowsWithTwo = 0;
    for (const projection of sink.projections) {
      const notices = synthetic(projection.messages, 'notice');
      if (notices.length < 2) continue;
      windowsWithTwo += 1;
      const listed = notices.flatMap(listedIn);
      expect(new Set(listed).size).toBe(listed.length);
      for (const notice of notices) {
        // Its count is what it lists plus what it refers to above.
        const total = Number(/(\d+) spans are cut/.exec(notice.text)![1]);
        const above = Number(/- the (\d+) named in the notice above/.exec(notice.text)?.[1] ?? 0);
        if (!notice.text.includes('more (status lists them)')) expect(listedIn(notice).length + above).toBe(total);
      }
    }
    // The driven session must reach the case at all, or the test says nothing.
    expect(windowsWithTwo).toBeGreaterThan(0);
  });

  it('a receipt counts its folds by kind and names none of them again', async () => {
    const receipts = await everySynthetic(21, 'receipt');
    expect(receipts.length).toBeGreaterThan(0);
    for (const receipt of receipts) {
      expect(idsIn(receipt.text)).toEqual([]);
      const match = /folded (\d+) span\(s\) \(([^)]*)\)/.exec(receipt.text);
      expect(match, receipt.text).not.toBeNull();
      const counted = match![2]!.split(', ').reduce((sum, part) => sum + Number(part.split(' ')[0]), 0);
      expect(counted).toBe(Number(match![1]));
    }
  });

  it('a commit drops the receipts before it and the notices whose folds all landed', async () => {
    const { sink } = await driveSession({ seed: 1, steps: 150 });
    let commits = 0;
    for (const projection of sink.projections) {
      const receipts = synthetic(projection.messages, 'receipt');
      const notices = synthetic(projection.messages, 'notice');
      if (receipts.length > 0) commits += 1;
      // In this session every earlier receipt and settled notice sits where the next commit re-sends.
      expect(receipts.length).toBeLessThanOrEqual(1);
      expect(notices.length).toBeLessThanOrEqual(1);
      const placeholders = new Set(synthetic(projection.messages, 'placeholder').map((message) => message.foldId));
      for (const notice of notices) {
        const listed = listedIn(notice);
        expect(listed.length === 0 || listed.some((id) => !placeholders.has(id)), notice.text).toBe(true);
      }
    }
    expect(commits).toBeGreaterThan(0);
  });

  it('a placeholder names its fold in its header and in the one exact peek call', async () => {
    const placeholders = await everySynthetic(21, 'placeholder');
    expect(placeholders.length).toBeGreaterThan(0);
    for (const placeholder of placeholders) {
      const id = placeholder.foldId!;
      const lines = placeholder.text.split('\n');
      expect(lines[0]).toContain(`[folded `);
      expect(lines[0]).toContain(id);
      expect(lines.at(-1)).toContain(`{"action":"peek","id":"${id}"}`);
      expect(lines.at(-1)).toContain('"action":"expand"');
      // Header and peek call; a consolidation's brief also names its children, never itself.
      expect(idsIn(placeholder.text).filter((found) => found === id)).toHaveLength(2);
    }
  });

  it('a receipt says what the commit did and shows no read call: the placeholders give it', async () => {
    const receipts = await everySynthetic(21, 'receipt');
    expect(receipts.length).toBeGreaterThan(0);
    for (const receipt of receipts) {
      expect(receipt.text).not.toContain('"action"');
      expect(receipt.text.split('\n')).toHaveLength(1);
    }
  });

  it('a consolidation names each child on one short line, and its peek shows each child whole', async () => {
    const { runtime } = await driveSession({ seed: 3, steps: 300, resultChars: [2000, 6000] });
    const consolidations = [...runtime.view.lattice.allRecords()].filter((record) => record.kind === 'consolidation');
    expect(consolidations.length).toBeGreaterThan(0);
    let longerThanItsLine = 0;
    for (const record of consolidations) {
      const children = record.parts.flatMap((part) => (part.kind === 'fold' ? [part.foldId] : []));
      const [head, ...lines] = record.brief.split('\n');
      expect(head).toBe(`covers ${children.length} folds`);
      // One line a child, in order, each naming it; short enough that the index stays an index.
      expect(lines.map((line) => idsIn(line)[0])).toEqual(children);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(120);
      const peek = await runtime.act({ action: 'peek', id: record.id, offset: 0, bytes: 200_000 });
      for (const [position, childId] of children.entries()) {
        const child = runtime.view.lattice.record(childId)!;
        const shown = lines[position]!.slice(lines[position]!.indexOf('): ') + 3).replace(/…$/, '');
        expect(child.brief.replace(/\s+/g, ' ').startsWith(shown)).toBe(true);
        if (child.brief.length <= shown.length + 1) continue;
        longerThanItsLine += 1;
        // What the line leaves out is one peek of the consolidation away.
        const inPeek = child.brief.replace(/\s+/g, ' ').slice(0, 300);
        expect(peek.text).toContain(inPeek);
      }
    }
    expect(longerThanItsLine).toBeGreaterThan(0);
  });

  it("a Pi assistant message's text is its prose: its tool calls are the entry's toolCalls, not text", () => {
    const call = { type: 'toolCall' as const, id: 'c1', name: 'read', arguments: { path: 'a.ts' } };
    expect(readableText(piAssistant([call]))).toBe('');
    expect(readableText(piAssistant([{ type: 'text', text: 'Reading a.' }, call]))).toBe('Reading a.');
  });
});
