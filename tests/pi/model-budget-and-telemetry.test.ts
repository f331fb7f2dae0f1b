import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { COMMIT_TELEMETRY_CHANNEL } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { DEFAULT_THRESHOLDS } from '../../core/settings/settings.ts';
import type { CommitTelemetry } from '../../ports/projection-sink.port.ts';
import { openScriptedPi, type RecordedRequest, type ScriptedReply, settle } from '../../testing/pi/scripted-pi.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const BUDGETS = { s1: 120_000, 'scripted/s2': 40_000 };

/** Reads of 12 KB until the turn has made `readsPerTurn` calls, then an answer. */
function readingScript(
  readsPerTurn: number,
): (request: RecordedRequest, history: readonly RecordedRequest[]) => ScriptedReply {
  let turnStart = 0;
  return (request, history) => {
    const previous = history[request.index - 1];
    if (previous !== undefined && previous.index >= turnStart + readsPerTurn) turnStart = request.index;
    if (request.index - turnStart >= readsPerTurn) return { kind: 'text', text: `Read ${readsPerTurn} blobs.` };
    return { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 12_000 } }] };
  };
}

describe('pi: the model of each request picks its budget, and commits reach the event bus', () => {
  it('a /model switch mid-session budgets the next request for the new model and commits down to it', async () => {
    const telemetry: CommitTelemetry[] = [];
    const listener = (api: ExtensionAPI) => {
      api.events.on(COMMIT_TELEMETRY_CHANNEL, (event) => telemetry.push(event as CommitTelemetry));
    };
    const pi = await openScriptedPi({
      script: readingScript(11),
      extraModels: [{ id: 's2', contextWindow: 200_000 }],
      fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, settings: { providerInputBudget: BUDGETS } },
      otherExtensions: { after: [listener] },
    });
    await pi.session.prompt('Read eleven blobs.');
    await settle(pi.session);
    const beforeSwitch = pi.requests.length;
    expect(pi.requests.every((request) => request.model === 's1')).toBe(true);
    for (const row of pi.ledger) expect(row.budgetTokens).toBe(BUDGETS.s1);
    // About 34k tokens: past s2's commit line (maxTarget of its budget), far under s1's.
    expect(pi.ledger.at(-1)!.estimatedTokens).toBeGreaterThan(BUDGETS['scripted/s2'] * DEFAULT_THRESHOLDS.maxTarget);
    expect(pi.ledger.some((row) => row.foldsLanded > 0)).toBe(false);

    await pi.session.setModel(pi.model('s2'));
    await pi.session.prompt('Read eleven more.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    const afterSwitch = pi.ledger.slice(beforeSwitch);
    expect(pi.requests.slice(beforeSwitch).every((request) => request.model === 's2')).toBe(true);
    for (const row of afterSwitch) expect(row.budgetTokens).toBe(BUDGETS['scripted/s2']);
    // The first request to s2 already carries a commit down to s2's budget.
    expect(afterSwitch[0]!.foldsLanded).toBeGreaterThan(0);
    for (const request of pi.requests.slice(beforeSwitch))
      expect(request.promptTokens).toBeLessThanOrEqual(BUDGETS['scripted/s2']);

    // Every commit reached Pi's event bus: once landed, once measured, as the runtime logged it.
    const runtime = (await pi.registration.sessions.forSession(pi.sessionManager)).runtime;
    const commits = pi.ledger.filter((row) => row.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(0);
    expect(telemetry.filter((event) => event.phase === 'landed').map((event) => event.request)).toEqual(
      commits.map((row) => row.request),
    );
    expect(telemetry.filter((event) => event.phase === 'measured').map((event) => event.request)).toEqual(
      commits.map((row) => row.request),
    );
    expect(telemetry.filter((event) => event.phase === 'measured')).toEqual(
      runtime.view.telemetry.recent.slice(-commits.length),
    );
    for (const event of telemetry) expect(event.sessionId).toBe(pi.sessionManager.getSessionId());
  }, 120_000);
});
