import { afterEach, describe, expect, it, vi } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { sessionStateOf } from '../../core/fold-runtime.ts';
import { ProjectionRenderer } from '../../core/render/projection-renderer.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

// One request renders the whole window at most once (docs/architecture.md, the request walk):
// with a rewrite queued the candidate is a full render, and a commit landing on the same
// request patches the spans it folded instead of rendering everything again. The count is
// of calls to ProjectionRenderer.renderAll made inside `project`, not a timing.

afterEach(() => {
  vi.restoreAllMocks();
});

describe('one full render per request', () => {
  it('a request with an expand queued and a commit landing renders once, and sends what a fresh render shows', async () => {
    const renderAll = vi.spyOn(ProjectionRenderer.prototype, 'renderAll');
    const { runtime } = await openRuntime({
      settings: { scheduling: 'band', providerInputBudget: 40_000, rawFloorTokens: 0 },
    });
    const session = new SyntheticSession({ seed: 11, resultChars: [3000, 12_000] });
    const both: number[] = [];
    let expanded = 0;
    for (let step = 0; step < 80; step += 1) {
      session.step();
      // Queue a rewrite before the request: expand the smallest visible fold, when the budget allows.
      const fold = [...runtime.view.visibleFolds].sort((a, b) => a.record.sourceChars - b.record.sourceChars)[0];
      if (fold !== undefined) {
        try {
          await runtime.act({ action: 'expand', id: fold.record.id });
          expanded += 1;
        } catch (error) {
          if (!FoldError.isInstance(error) || error.code !== 'ACTION.OVER_BUDGET') throw error;
        }
      }
      renderAll.mockClear();
      const result = await runtime.project(session.entries);
      const rendersInRequest = renderAll.mock.calls.length;
      expect(
        rendersInRequest,
        `request ${result.ledger.request} (causes ${result.ledger.causes.join(', ')})`,
      ).toBeLessThanOrEqual(1);
      if (result.ledger.causes.includes('expand') && result.ledger.foldsLanded > 0) {
        both.push(result.ledger.request);
        expect(rendersInRequest).toBe(1);
        // The patched window is the window: byte for byte what a full render of the state gives.
        expect(result.messages.map((message) => message.digest)).toEqual(
          runtime.view.pendingWindow().map((message) => message.digest),
        );
        expect(runtime.view.visibleFolds.map((placed) => placed.record.id)).toEqual(
          visibleFoldIdsOfFreshRender(runtime),
        );
      }
      runtime.recordUsage({
        input: providerTokens(result.ledger.totalChars),
        cacheRead: 0,
        cacheWrite: 0,
        output: 200,
      });
    }
    expect(expanded).toBeGreaterThan(0);
    expect(both.length).toBeGreaterThan(0);
  });
});

/** The visible folds a full render of the runtime's current state records (a renderer of its own, so no cache is shared). */
function visibleFoldIdsOfFreshRender(runtime: Awaited<ReturnType<typeof openRuntime>>['runtime']): string[] {
  // The session's render inputs are what any render reads.
  const state = sessionStateOf(runtime);
  return new ProjectionRenderer().renderAll(state.renderInputs()).visibleFolds.map((placed) => placed.record.id);
}
