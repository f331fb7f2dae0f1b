import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StatusReport } from '../../core/actions/status-action.ts';
import { openScriptedPi, type RecordedRequest, type ScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';

/** The scripted s1's window (200 000) less its output reservation (16 384). */
const S1_BUDGET = 183_616;
const S2_WINDOW = 100_000;

const readThenAnswer = (reads: number) => (request: RecordedRequest) =>
  request.index >= reads
    ? { kind: 'text' as const, text: 'done' }
    : { kind: 'tools' as const, calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 24_000 } }] };

/** Pi quits: the shutdown event its runtime sends before the session goes (pi-fold closes its runtimes on it). */
async function quit(pi: ScriptedPi): Promise<void> {
  await pi.session.extensionRunner.emit({ type: 'session_shutdown', reason: 'quit' } as never);
  pi.session.dispose();
}

/** A session on the default filesystem store, run with default settings: the budget comes from s1's window. */
async function firstRun(): Promise<{ sessionDirectory: string; sessionFile: string; counters: object }> {
  const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-restart-budget-'));
  const first = await openScriptedPi({
    script: readThenAnswer(30),
    extraModels: [{ id: 's2', contextWindow: S2_WINDOW }],
    fold: { settingsPath: join(sessionDirectory, 'no-settings.json') },
    sessionDirectory,
  });
  await first.session.prompt('Read blobs.');
  await settle(first.session);
  // Short turns after the reads: their requests change only counters, which no request saves alone.
  for (const text of ['Thanks.', 'One more question.', 'Bye.']) {
    await first.session.prompt(text);
    await settle(first.session);
  }
  const folding = await first.registration.sessions.forSession(first.sessionManager);
  const status = await folding.runtime.act({ action: 'status' });
  expect(status.text).toMatch(new RegExp(`^budget ${S1_BUDGET} tokens · occupancy [\\d.]+%`));
  const counters = { ...folding.runtime.view.memory.counters };
  expect(counters.requests).toBe(first.requests.length);
  expect(first.errors).toEqual([]);
  const sessionFile = first.sessionManager.getSessionFile()!;
  await quit(first);
  return { sessionDirectory, sessionFile, counters };
}

describe('pi: a session restarted on its session file knows its budget and its counters', () => {
  it('before its first request, status gives the budget of the last request and counts every request', async () => {
    const { sessionDirectory, sessionFile, counters } = await firstRun();
    const second = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'second run' }),
      extraModels: [{ id: 's2', contextWindow: S2_WINDOW }],
      fold: { settingsPath: join(sessionDirectory, 'no-settings.json') },
      sessionFile,
      sessionDirectory,
    });
    const after = await second.registration.sessions.forSession(second.sessionManager);
    // The agent's own status (the fold tool), not /fold-status, which asks Pi for the model itself.
    const status = await after.runtime.act({ action: 'status' });
    expect(second.requests).toHaveLength(0);
    expect((status.data as StatusReport).budgetTokens).toBe(S1_BUDGET);
    expect(status.text).toMatch(
      new RegExp(`^budget ${S1_BUDGET} tokens \\(from the last request's context window\\) · occupancy unknown`),
    );
    expect(after.runtime.view.memory.counters).toEqual(counters);
    await quit(second);
  }, 120_000);

  it('reopened on another model, the budget is that model’s window until a request says more', async () => {
    const { sessionDirectory, sessionFile, counters } = await firstRun();
    const second = await openScriptedPi({
      script: () => ({ kind: 'text', text: 'second run' }),
      extraModels: [{ id: 's2', contextWindow: S2_WINDOW }],
      startModel: { provider: 'scripted', id: 's2' },
      fold: { settingsPath: join(sessionDirectory, 'no-settings.json') },
      sessionFile,
      sessionDirectory,
    });
    const after = await second.registration.sessions.forSession(second.sessionManager);
    const status = await after.runtime.act({ action: 'status' });
    expect(second.requests).toHaveLength(0);
    expect((status.data as StatusReport).budgetSource).toBe('host-context');
    expect(status.text).toMatch(/^budget 90000 tokens \(from the model's context window\) · occupancy unknown/);
    expect(after.runtime.view.memory.counters).toEqual(counters);
    await second.session.prompt('Go on.');
    await settle(second.session);
    expect(second.ledger.at(-1)!.budgetTokens).toBe(90_000);
    expect(second.errors).toEqual([]);
    await quit(second);
  }, 120_000);
});
