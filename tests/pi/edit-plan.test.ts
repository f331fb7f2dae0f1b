import type { AgentMessage } from '@mariozechner/pi-agent-core';
import { describe, expect, it } from 'vitest';
import type { BranchItem } from '../../adapters/hosts/pi/landing/branch-context.ts';
import { planEdits } from '../../adapters/hosts/pi/landing/edit-plan.ts';
import { sameMessages } from '../../adapters/hosts/pi/landing/land-edits.ts';
import type { ProjectedMessage } from '../../ports/projected-message.ts';
import { piAssistant } from '../support/pi-assistant.ts';

/**
 * docs/pi.md, "Landing as context edits": where the window's own texts (placeholders,
 * notices, receipts) ride in the session when the entries they replace hold too few user
 * messages, as in a long tool loop under one prompt.
 */

function item(entryId: string, raw: AgentMessage, systemsBefore = 0): BranchItem {
  return {
    entryId,
    raw,
    insert: false,
    userLike: raw.role === 'user' || raw.role === 'custom',
    editable: true,
    state: { kind: 'raw' },
    systemsBefore,
  };
}

const user = (id: string) =>
  item(id, { role: 'user', content: [{ type: 'text', text: `prompt ${id}` }], timestamp: 1 });
const assistant = (id: string, stopReason: 'toolUse' | 'error' = 'toolUse') =>
  item(id, piAssistant([{ type: 'toolCall', id: `c${id}`, name: 'read', arguments: {} }], stopReason));
const result = (id: string) =>
  item(id, {
    role: 'toolResult',
    toolCallId: `c${id.slice(1)}`,
    toolName: 'read',
    content: [{ type: 'text', text: 'bytes' }],
    isError: false,
    timestamp: 1,
  });

const shown = (entryId: string): ProjectedMessage => ({ kind: 'entry', entryId, bytes: '', digest: '' });
const placeholder = (text: string): ProjectedMessage => ({
  kind: 'synthetic',
  origin: 'placeholder',
  text,
  bytes: text,
  digest: '',
});

/** One prompt, then three folded chapters of tool calls, then the newest call raw. */
function oneUserLoop(stopReason: 'toolUse' | 'error' = 'toolUse'): BranchItem[] {
  return [
    user('u1'),
    assistant('a1'),
    result('r1'),
    assistant('a2', stopReason),
    result('r2'),
    assistant('a3'),
    result('r3'),
    assistant('a4'),
    result('r4'),
  ];
}

const WINDOW = [
  placeholder('chapter one'),
  placeholder('chapter two'),
  placeholder('chapter three'),
  shown('a4'),
  shown('r4'),
];

describe('pi: where a landing puts the window’s texts', () => {
  it('a gap with fewer user messages than texts lets assistant entries carry them, so the plan stays exact', () => {
    const plan = planEdits(oneUserLoop(), WINDOW, []);
    expect(plan.exact).toBe(true);
    expect(plan.tailTexts).toEqual([]);
    const carried = plan.edits.filter((edit) => edit.replacement !== null);
    expect(carried.map((edit) => edit.targetId)).toEqual(['u1', 'a1', 'a2']);
    expect(carried.map((edit) => JSON.stringify(edit.replacement))).toEqual(
      ['chapter one', 'chapter two', 'chapter three'].map((text) =>
        JSON.stringify({ content: [{ type: 'text', text }] }),
      ),
    );
    // Everything else of the folded span is left out, results included: no call loses its result.
    expect(plan.edits.filter((edit) => edit.replacement === null).map((edit) => edit.targetId)).toEqual([
      'r1',
      'r2',
      'a3',
      'r3',
    ]);
  });

  it('user messages carry the texts alone when there are enough of them', () => {
    const items = [user('u1'), assistant('a1'), result('r1'), user('u2'), assistant('a4'), result('r4')];
    const plan = planEdits(items, [placeholder('one'), placeholder('two'), shown('a4'), shown('r4')], []);
    expect(plan.exact).toBe(true);
    expect(plan.edits.filter((edit) => edit.replacement !== null).map((edit) => edit.targetId)).toEqual(['u1', 'u2']);
  });

  it('a failed reply, which Pi’s providers drop, carries nothing', () => {
    const plan = planEdits(oneUserLoop('error'), WINDOW, []);
    expect(plan.edits.filter((edit) => edit.replacement !== null).map((edit) => edit.targetId)).toEqual([
      'u1',
      'a1',
      'a3',
    ]);
  });

  it('a gap that holds one of Pi’s system messages keeps to user entries, and goes out from the hook', () => {
    // Pi puts its system message back between r2 and a3 after the hook: a text carried on the
    // far side of it would move relative to it.
    const items = oneUserLoop().map((entry, position) => (position >= 5 ? { ...entry, systemsBefore: 1 } : entry));
    const plan = planEdits(items, WINDOW, []);
    expect(plan.exact).toBe(false);
    expect(plan.edits.filter((edit) => edit.replacement !== null).map((edit) => edit.targetId)).toEqual(['u1']);
  });

  it('a text an assistant entry carries counts as the window’s text when Pi sends it', () => {
    const carriedByAssistant = { ...oneUserLoop()[1]!.raw, content: [{ type: 'text', text: 'chapter two' }] };
    const wanted = { role: 'user', content: [{ type: 'text', text: 'chapter two' }], timestamp: 2 } as AgentMessage;
    expect(sameMessages([carriedByAssistant as AgentMessage], [wanted])).toBe(true);
    const otherText = { ...carriedByAssistant, content: [{ type: 'text', text: 'chapter 2' }] };
    expect(sameMessages([otherText as AgentMessage], [wanted])).toBe(false);
  });
});
