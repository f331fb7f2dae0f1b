import type { AgentMessage } from '@mariozechner/pi-agent-core';
import { describe, expect, it } from 'vitest';
import { OwnershipMonitor } from '../../adapters/hosts/pi/ownership-monitor.ts';

const user = (content: string) => ({ role: 'user', content, timestamp: 0 }) as AgentMessage;
const assistant = (text: string, stopReason = 'stop') =>
  ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'private reasoning that providers may drop' },
      { type: 'text', text },
    ],
    stopReason,
    timestamp: 0,
  }) as unknown as AgentMessage;
const result = (text: string) =>
  ({
    role: 'toolResult',
    toolCallId: 'c1',
    toolName: 'read',
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 0,
  }) as AgentMessage;

/** A provider body: the texts as some provider would nest them. */
const body = (...texts: string[]) => ({
  model: 'm',
  input: texts.map((text, position) => ({
    role: position % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'input_text', text }],
  })),
});

describe('OwnershipMonitor (unit)', () => {
  it('accepts a body that carries every text, even re-encoded, reordered or with thinking dropped', () => {
    const monitor = new OwnershipMonitor();
    const texts = [
      'Read the blobs one by one.',
      'I will read blob 1 now, then report.',
      'blob 1 begins. alpha beta gamma delta',
    ];
    monitor.projected([user(texts[0]!), assistant(texts[1]!), result(texts[2]!)], 1);
    expect(monitor.checkPayload(body(texts[2]!, texts[0]!, texts[1]!))).toBeUndefined();
    // A failed turn is dropped by pi-ai before sending; its text is not expected.
    monitor.projected([user(texts[0]!), assistant('the provider refused this one', 'error')], 2);
    expect(monitor.checkPayload(body(texts[0]!))).toBeUndefined();
    expect(monitor.warnings).toEqual([]);
  });

  it('does not expect a text pi-ai would change (a lone surrogate), and a cut emoji still matches', () => {
    const monitor = new OwnershipMonitor();
    const emoji = `${'a'.repeat(47)}😀 and the rest of the text`;
    const lone = 'abc\uD800 and more text after the broken character';
    monitor.projected([user(emoji), user(lone)], 1);
    expect(monitor.checkPayload(body(emoji, lone.replace('\uD800', '\uFFFD')))).toBeUndefined();
  });

  it('compares whole texts: a text cut after its start, or changed at its end, is missing', () => {
    const monitor = new OwnershipMonitor();
    const long = `${'line of a long tool result\n'.repeat(300)}the end`;
    monitor.projected([user('Read the long file please.'), result(long)], 3);
    expect(monitor.checkPayload(body('Read the long file please.', long.slice(0, 200)))?.message).toContain(
      '1 of 2 texts',
    );
    monitor.projected([user('Read the long file please.'), result(long)], 4);
    expect(
      monitor.checkPayload(body('Read the long file please.', long.replace('the end', 'THE END'))),
    ).toBeUndefined();
    expect(monitor.warnings[0]!.occurrences).toBe(2);
    // Whole and in place, it is found (also inside a longer string, as some providers join texts).
    const fresh = new OwnershipMonitor();
    fresh.projected([user('Read the long file please.'), result(long)], 1);
    expect(fresh.checkPayload(body(`Read the long file please.\n\n${long}`))).toBeUndefined();
  });

  it('reads an Anthropic thread continuation (only the new messages) without an alarm, and still sees a new text rewritten', () => {
    const monitor = new OwnershipMonitor();
    const texts = [
      'Read the blobs one by one.',
      'I will read blob 1 now, then report.',
      'blob 1 begins. alpha beta gamma delta',
      'Now blob 2, the last one.',
      'blob 2 begins. omega sigma kappa zeta',
    ];
    const window = [user(texts[0]!), assistant(texts[1]!), result(texts[2]!), assistant(texts[3]!), result(texts[4]!)];
    // The server holds the thread up to the previous reply; the body carries what came after it.
    const continuation = (...sent: string[]) => ({
      ...body(...sent),
      thread: { type: 'continue', previous_message_id: 'msg_1' },
    });
    monitor.projected(window, 1);
    expect(monitor.checkPayload(continuation(texts[4]!))).toBeUndefined();
    monitor.projected(window, 2);
    expect(monitor.checkPayload(continuation(texts[3]!, texts[4]!))).toBeUndefined();
    expect(monitor.warnings).toEqual([]);
    // Another extension cut the newest result: the continuation lacks it.
    monitor.projected(window, 3);
    expect(monitor.checkPayload(continuation(texts[3]!, texts[4]!.slice(0, 14)))?.problem).toBe(
      'rewritten-after-pi-fold',
    );
    monitor.projected(window, 4);
    expect(monitor.checkPayload(continuation('[result dropped by another extension]'))).toBeUndefined();
    expect(monitor.warnings[0]!.occurrences).toBe(2);
    // A body that starts a thread (or has none) carries the whole window and is checked whole.
    monitor.projected(window, 5);
    expect(monitor.checkPayload({ ...body(texts[3]!, texts[4]!), thread: { type: 'create' } })).toBeUndefined();
    expect(monitor.warnings[0]!.occurrences).toBe(3);
  });

  it('reads a body with a cycle (handed back by some extension) without looping', () => {
    const monitor = new OwnershipMonitor();
    monitor.projected([user('a text long enough to look for')], 1);
    const cyclic: Record<string, unknown> = { messages: [{ content: 'a text long enough to look for' }] };
    cyclic.self = cyclic;
    expect(monitor.checkPayload(cyclic)).toBeUndefined();
  });

  it('reports a missing text once, then counts; only the first body after a projection is compared', () => {
    const monitor = new OwnershipMonitor();
    const texts = ['first message of the session', 'second message of the session'];
    monitor.projected([user(texts[0]!), user(texts[1]!)], 4);
    const warning = monitor.checkPayload(body(texts[0]!, '[dropped by another extension]'));
    expect(warning?.problem).toBe('rewritten-after-pi-fold');
    expect(warning?.message).toContain('1 of 2 texts');
    expect(warning?.firstRequest).toBe(4);
    // Pi's own side call (a summary) has other messages: nothing is expected of it.
    expect(monitor.checkPayload(body('summarise this'))).toBeUndefined();
    monitor.projected([user(texts[0]!), user(texts[1]!)], 5);
    expect(monitor.checkPayload(body('[dropped]'))).toBeUndefined();
    expect(monitor.warnings.map((known) => [known.problem, known.occurrences])).toEqual([
      ['rewritten-after-pi-fold', 2],
    ]);
  });

  it('lets a manual compaction and its own recovery through, once, and reports any other', () => {
    const monitor = new OwnershipMonitor();
    expect(monitor.compacted({ tokensBefore: 1000, details: { piFold: 'overflow-recovery' } }, 3)).toBeUndefined();
    monitor.allowManualCompaction();
    expect(monitor.compacted({ tokensBefore: 1000 }, 4)).toBeUndefined();
    expect(monitor.compacted({ tokensBefore: 190_000 }, 9)?.message).toContain('about 190000 tokens summarised');
    expect(monitor.compacted({ tokensBefore: 1000 }, 12)).toBeUndefined();
    expect(monitor.warnings.map((known) => [known.problem, known.occurrences, known.firstRequest])).toEqual([
      ['compacted-by-pi', 2, 9],
    ]);
  });
});
