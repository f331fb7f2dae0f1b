import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { ModelMessage } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PiEntryMapper } from '../../adapters/hosts/pi/message-entries.ts';
import { MessageEntryMapper } from '../../adapters/hosts/vercel-ai/internal.ts';
import { FoldError } from '../../core/fold-error.ts';
import { describeEntryProblem } from '../../core/transcript/entry-validation.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

const utf8 = new TextDecoder('utf-8');

/** Whether `text` survives UTF-8 as given: what a store keeps of it. */
function readsBack(text: string): boolean {
  return utf8.decode(Buffer.from(text, 'utf8')) === text;
}

function userEntry(id: string, bytes: string, text = 'hello'): TranscriptEntry {
  return { id, role: 'user', bytes, text };
}

/** Any code point, or a single surrogate half: halves may pair up, or stand alone. */
const codeUnitsOrPoints = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.integer({ min: 0xd800, max: 0xdfff }).map((unit) => String.fromCharCode(unit)),
);

function refusal(run: () => unknown): FoldError {
  try {
    run();
  } catch (error) {
    if (FoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('an entry that UTF-8 cannot store as given is refused (docs/behaviour.md I2)', () => {
  it('refuses a lone surrogate in bytes by entry and char, and the index stays as it was', () => {
    const index = new TranscriptIndex();
    index.ingest([userEntry('u1', '{"a":1}')]);
    const error = refusal(() => index.ingest([index.entries[0]!, userEntry('u2', '{"content":"ab\uD83D c"}')]));
    expect(error.code).toBe('TRANSCRIPT.INVALID_ENTRY');
    expect(error.message).toContain('position 1 ("u2")');
    expect(error.message).toContain('bytes holds an unpaired surrogate (U+D83D) at char 14');
    expect(index.length).toBe(1);
  });

  it('refuses a lone low surrogate in text, and takes well-formed pairs', () => {
    expect(describeEntryProblem(userEntry('u', '{}', 'x\uDE00'))).toMatch(
      /text holds an unpaired surrogate \(U\+DE00\) at char 1/,
    );
    expect(describeEntryProblem(userEntry('u', '{"e":"😀"}', 'ok 😀'))).toBeUndefined();
  });

  it('accepts exactly the strings that read back through UTF-8 as given', () => {
    fc.assert(
      fc.property(fc.string({ unit: codeUnitsOrPoints }), fc.string({ unit: codeUnitsOrPoints }), (bytes, text) => {
        const single = bytes.replaceAll('\n', ' ');
        const problem = describeEntryProblem(userEntry('u', single, text));
        expect(problem === undefined).toBe(readsBack(single) && readsBack(text));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('a host message carrying a lone surrogate does not end the session', () => {
  const lone = 'before \uD83D after \uDC00 end';

  it('Pi: the bytes keep it exactly as a JSON escape, the text shows U+FFFD, the engine takes the entry', () => {
    const message = { role: 'user', content: lone, timestamp: 1 } as AgentMessage;
    const branch = [
      { type: 'message', id: 'e1', parentId: null, timestamp: new Date(1).toISOString(), message },
    ] as SessionEntry[];
    const [entry] = new PiEntryMapper().map([message], branch).entries;
    expect(JSON.parse(entry!.bytes).content).toBe(lone);
    expect(entry!.text).toContain('before \uFFFD after \uFFFD end');
    const index = new TranscriptIndex();
    index.ingest([entry!]);
    expect(index.length).toBe(1);
  });

  it('AI SDK: the bytes keep it exactly as a JSON escape, the text shows U+FFFD, the engine takes the entries', () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: lone },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: lone } }],
      },
      {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: lone } }],
      },
    ];
    const entries = new MessageEntryMapper().toEntries(messages);
    expect(JSON.parse(entries[0]!.bytes).content).toBe(lone);
    expect(entries.map((entry) => entry.text).join(' ')).toContain('before \uFFFD after \uFFFD end');
    const index = new TranscriptIndex();
    index.ingest(entries);
    expect(index.length).toBe(entries.length);
  });
});
