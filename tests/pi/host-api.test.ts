import type { AssistantMessage } from '@mariozechner/pi-ai';
import type { SessionBeforeCompactEvent } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import {
  hostScopeOf,
  loadContextOverflowCheck,
  loadTerminalText,
  type PiHostScope,
  StringEnum,
  statedCompactionReason,
  Type,
} from '../../adapters/hosts/pi/host-api.ts';
import { piAssistant } from '../support/pi-assistant.ts';

const SCOPES: readonly PiHostScope[] = ['@earendil-works', '@mariozechner'];

function assistant(stopReason: AssistantMessage['stopReason'], errorMessage?: string): AssistantMessage {
  return piAssistant([], stopReason, errorMessage === undefined ? {} : { errorMessage });
}

// The one place that reaches Pi beyond the ExtensionAPI. Whichever Pi these suites run against
// (0.x on Node 20, 1.x in the compatibility job), a lookup that prefers the scope that is not
// installed must still find the host's module through the other one.
describe('pi host API: one place for what differs between Pi 0.x and 1.x', () => {
  it("tells the host generation from the context, and takes Pi 1.x's stated compaction reason", () => {
    expect(hostScopeOf({ mode: 'tui', hasUI: true })).toBe('@earendil-works');
    expect(hostScopeOf({ hasUI: true })).toBe('@mariozechner');
    const event = (reason?: unknown) =>
      ({
        type: 'session_before_compact',
        ...(reason === undefined ? {} : { reason }),
      }) as unknown as SessionBeforeCompactEvent;
    for (const reason of ['manual', 'threshold', 'overflow'] as const)
      expect(statedCompactionReason(event(reason))).toBe(reason);
    expect(statedCompactionReason(event())).toBeUndefined();
    expect(statedCompactionReason(event('budget'))).toBeUndefined();
  });

  it('builds the string enum as a plain {type, enum} schema inside a typebox object', () => {
    const schema = Type.Object({ detail: StringEnum(['summary', 'tree'] as const, { description: 'how much' }) });
    expect(JSON.parse(JSON.stringify(schema)).properties.detail).toEqual({
      type: 'string',
      enum: ['summary', 'tree'],
      description: 'how much',
    });
  });

  it.each(SCOPES)("loads pi-ai's overflow classifier preferring %s, and it classifies real replies", async (scope) => {
    const isContextOverflow = await loadContextOverflowCheck(scope);
    expect(isContextOverflow(assistant('error', 'prompt is too long: 250000 tokens > 200000 maximum'), 200_000)).toBe(
      true,
    );
    expect(isContextOverflow(assistant('error', 'overloaded, try again'), 200_000)).toBe(false);
    expect(isContextOverflow(assistant('stop'), 200_000)).toBe(false);
  });

  it.each(SCOPES)("loads the host pi-tui's key and width helpers preferring %s", async (scope) => {
    const terminal = await loadTerminalText(scope);
    expect(terminal.matchesKey('\u001b[A', 'up')).toBe(true);
    expect(terminal.matchesKey('\u001b[A', 'down')).toBe(false);
    expect(terminal.truncateToWidth('abcdefghij', 4).replace(/\u001b\[[0-9;]*m/g, '').length).toBeLessThanOrEqual(4);
  });
});
