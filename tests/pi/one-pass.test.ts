import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import {
  KEEP_BLOBS_RAW,
  openScriptedPi,
  PI_VERSION,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { hasContextEdits } from './support/turn-end-edits.ts';

/**
 * One pass of a Pi request: pi-fold reads and maps the branch once per request, and a landing
 * takes in what it appended instead of having Pi project the whole branch again. Real
 * AgentSessions with the scripted offline provider; spies count the work pi-fold does inside
 * its own `context` handler.
 */

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const NOTE = 'A NOTE ANOTHER EXTENSION ADDS TO EVERY REQUEST';
const edits = hasContextEdits(PI_VERSION);
const skipReason = edits ? '' : ` (skipped: Pi ${PI_VERSION} has no context edits; they arrived in 0.87.0)`;

/** Reads 24 KB blobs until request `stop`, then answers. */
function readingScript(stop: number) {
  return (request: RecordedRequest): ScriptedReply =>
    request.index >= stop
      ? { kind: 'text', text: 'done' }
      : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };
}

/** An extension loaded before pi-fold that puts a message of its own in front of every request. */
function injectingExtension(pi: ExtensionAPI): void {
  pi.on('context', (event) => {
    const note = { role: 'user', content: [{ type: 'text', text: NOTE }], timestamp: 1 } as AgentMessage;
    return { messages: [note, ...event.messages] };
  });
}

/**
 * Wraps the API pi-fold registers on so that `inside.active` is true while pi-fold's own
 * `context` handler runs, and counts its calls.
 */
function watchContextHandler(inside: { active: boolean; calls: number }) {
  return (pi: ExtensionAPI): ExtensionAPI => {
    const on = pi.on.bind(pi) as (event: string, handler: (...args: unknown[]) => unknown) => void;
    const wrapped = (event: string, handler: (...args: unknown[]) => unknown) => {
      if (event !== 'context') return on(event, handler);
      return on(event, async (...args: unknown[]) => {
        inside.active = true;
        inside.calls += 1;
        try {
          return await handler(...args);
        } finally {
          inside.active = false;
        }
      });
    };
    return new Proxy(pi, { get: (target, key) => (key === 'on' ? wrapped : Reflect.get(target, key)) });
  };
}

describe('pi: one pass of a request', () => {
  it("maps the branch once per request, also when another extension's message matches no entry", async () => {
    const inside = { active: false, calls: 0 };
    const pi = await openScriptedPi({
      script: readingScript(6),
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, landing: 'context-hook' },
      otherExtensions: { before: [injectingExtension] },
      wrapExtensionApi: watchContextHandler(inside),
    });
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    // The branch each mapping was given, by the request whose `context` handler made it.
    const branchLengths: number[][] = [];
    const map = folding.mapper.map.bind(folding.mapper);
    folding.mapper.map = (messages, branch) => {
      (branchLengths[inside.calls - 1] ??= []).push(branch.length);
      return map(messages, branch);
    };
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    expect(inside.calls).toBe(pi.requests.length);
    expect(pi.requests.length).toBeGreaterThan(3);
    for (const request of pi.requests) expect(request.serialized.join('\n')).toContain(NOTE);
    // The note matches no entry on every request. A second mapping is made only when the
    // branch grew in the tick after the first (Pi's session queue caught up); otherwise the
    // first mapping stands.
    expect(branchLengths).toHaveLength(pi.requests.length);
    for (const lengths of branchLengths) {
      const remappedOnGrowth = lengths.length === 2 && lengths[1]! > lengths[0]!;
      expect(lengths.length === 1 || remappedOnGrowth, `branch lengths mapped: ${lengths.join(', ')}`).toBe(true);
    }
  }, 60_000);

  it.skipIf(!edits)(
    `reads Pi's whole projection at the first request only, landings included${skipReason}`,
    async () => {
      const inside = { active: false, calls: 0 };
      const pi = await openScriptedPi({
        script: readingScript(40),
        compaction: false,
        fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: KEEP_BLOBS_RAW },
        wrapExtensionApi: watchContextHandler(inside),
      });
      const manager = pi.sessionManager as unknown as { buildSessionProjection: (...args: unknown[]) => unknown };
      const perRequest: number[] = [];
      const project = manager.buildSessionProjection.bind(manager);
      manager.buildSessionProjection = (...args: unknown[]) => {
        if (inside.active) perRequest[inside.calls - 1] = (perRequest[inside.calls - 1] ?? 0) + 1;
        return project(...args);
      };
      await pi.session.prompt('Read blobs.');
      await settle(pi.session);
      expect(pi.errors).toEqual([]);
      const folding = await pi.registration.sessions.forSession(pi.sessionManager);
      expect(folding.landing.used).toBe('session-edits');
      expect(folding.landing.counters.landings).toBeGreaterThan(1);
      expect(inside.calls).toBe(pi.requests.length);
      // The first read builds the reader's copy; every later one, a landing's read-back too,
      // takes in only what was appended: the session only grew.
      const counted = Array.from({ length: inside.calls }, (_, index) => perRequest[index] ?? 0);
      expect(counted).toEqual([1, ...new Array(inside.calls - 1).fill(0)]);
    },
    120_000,
  );
});
