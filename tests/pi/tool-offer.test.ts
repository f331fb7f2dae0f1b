import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { KEEP_BLOBS_RAW, openScriptedPi, type Script, settle } from '../../testing/pi/scripted-pi.ts';

const TOOL = 'pi_fold_context';
const SETTINGS = '/nonexistent/pi-fold/settings.json';
const settings = { ...KEEP_BLOBS_RAW, providerInputBudget: 40_000, scheduling: 'band', rawFloorTokens: 0 } as const;

/** 12 KB reads, answering at request 11 (the first turn's last) and from request 17 on: a 40k band commits during the first turn. */
const reads: Script = (request) =>
  request.index === 11 || request.index >= 17
    ? { kind: 'text', text: 'done' }
    : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 12_000 } }] };

describe("pi: toolOffer 'when-needed' offers pi_fold_context from the turn after the first commit", () => {
  it('a fresh session has no fold tool in its first turn; the turn after its first commit has it, and keeps it', async () => {
    const pi = await openScriptedPi({
      script: reads,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings, toolOffer: 'when-needed' },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const firstTurn = pi.requests.length;
    expect(pi.ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    for (const request of pi.requests) {
      expect(request.toolNames).not.toContain(TOOL);
      expect(request.toolNames).toContain('fetch_blob');
    }
    await pi.session.prompt('Read more.');
    await settle(pi.session);
    expect(pi.requests.length).toBeGreaterThan(firstTurn);
    for (const request of pi.requests.slice(firstTurn)) expect(request.toolNames).toContain(TOOL);
    // The human commands answer whatever the agent is offered.
    await pi.session.prompt('/fold-status');
    expect(pi.notices.at(-1)).toMatch(/^budget 40000 tokens/);
    expect(pi.errors).toEqual([]);
    pi.session.dispose();
  }, 90_000);

  it('the default offers the tool on every request; a session restored with folds offers it on its first request', async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-offer-'));
    const store = new MemoryFoldStore();
    const first = await openScriptedPi({
      script: reads,
      fold: { foldStore: store, settingsPath: SETTINGS, settings },
      sessionDirectory,
    });
    await first.session.prompt('Read blobs.');
    await settle(first.session);
    for (const request of first.requests) expect(request.toolNames).toContain(TOOL);
    expect(first.ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    const sessionFile = first.sessionManager.getSessionFile()!;
    first.session.dispose();

    const second = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'resumed' }),
      fold: { foldStore: store, settingsPath: SETTINGS, settings, toolOffer: 'when-needed' },
      sessionFile,
      sessionDirectory,
    });
    await second.session.prompt('Continue.');
    await settle(second.session);
    expect(second.requests[0]!.toolNames).toContain(TOOL);
    expect(second.errors).toEqual([]);
    second.session.dispose();
  }, 90_000);

  it('refuses an unknown toolOffer at registration, naming the choices', () => {
    const pi = {
      on: () => undefined,
      registerTool: () => undefined,
      registerCommand: () => undefined,
      getAllTools: () => [],
      getActiveTools: () => [],
    } as unknown as ExtensionAPI;
    expect(() => registerPiFold(pi, { toolOffer: 'sometimes' as never })).toThrow(
      /SETTINGS.INVALID: registerPiFold: toolOffer must be one of "always", "when-needed", got "sometimes"/,
    );
  });
});
