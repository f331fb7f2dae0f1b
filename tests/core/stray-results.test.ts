import { describe, expect, it } from 'vitest';
import { budgetExceeded } from '../../core/pricing/budget.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

function result(id: string, toolCallId: string, body: string): TranscriptEntry {
  return { id, role: 'toolResult', toolCallId, bytes: JSON.stringify({ body }), text: body };
}

/** A branch with a result whose call the host lost, and one that arrives before its call. */
function strayBranch(): TranscriptEntry[] {
  return [
    { id: 'u1', role: 'user', bytes: '{"u":1}', text: 'go' },
    result('lost', 'call-never-made', 'x'.repeat(400)),
    result('early', 'c2', 'y'.repeat(300)),
    {
      id: 'a1',
      role: 'assistant',
      bytes: '{"a":1}',
      text: 'calling',
      toolCalls: [{ id: 'c2', name: 'read', argumentsJson: '{}' }],
    },
    result('answered', 'c2', 'z'),
  ];
}

describe('tool results that answer no call before them are named, not blamed on pins', () => {
  it('the index counts them, in order, with the chars they hold raw', () => {
    const index = new TranscriptIndex();
    index.ingest(strayBranch());
    const stray = index.strayResults();
    expect(stray.count).toBe(2);
    expect(stray.firstEntryId).toBe('lost');
    expect(stray.chars).toBe(strayBranch()[1]!.bytes.length + strayBranch()[2]!.bytes.length);
  });

  it('a budget refusal names them as what is held raw, with their count in the details', () => {
    const index = new TranscriptIndex();
    index.ingest(strayBranch());
    const error = budgetExceeded({
      estimatedTokens: 900,
      budgetTokens: 500,
      request: 3,
      refusedStore: undefined,
      strayResults: index.strayResults(),
    });
    expect(error.code).toBe('BUDGET.EXCEEDED');
    expect(error.message).toContain('2 tool results answering no call made just before them');
    expect(error.message).toContain('first entry "lost"');
    expect(error.details).toMatchObject({ strayResults: 2 });
    const none = budgetExceeded({ estimatedTokens: 900, budgetTokens: 500, request: 3, refusedStore: undefined });
    expect(none.message).toContain('(pinned, protected or open material fills the window)');
  });
});
