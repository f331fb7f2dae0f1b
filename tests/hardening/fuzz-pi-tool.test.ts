import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { Projection } from '../../ports/projection-sink.port.ts';
import { FaultSwitch, FaultyFoldStore } from '../../testing/faulty-stores.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { appendOnlyViolations, forestViolations, pairingViolations, serialize } from '../../testing/window-checks.ts';
import { hostileCall, livePools, refusalProblems, resolveCall, runtimeFingerprint } from './support/hostile-actions.ts';
import { readingScript, SMALL_BUDGET_SETTINGS, sessionStores } from './support/pi-sessions.ts';

/**
 * Model-based fuzzing of `pi_fold_context` through the tool Pi itself runs: the AgentTool Pi
 * built from the registered definition, executed in a live session with folds, marks and
 * an fs store. Thousands of random calls with hostile arguments; after every one the
 * runtime projects again and the invariants are checked. A refusal must carry a FoldError
 * code naming its reason and change nothing: the next projection is byte-identical.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const RUNS = long ? 2_000 : 250;
const CALLS_PER_RUN = 8;

interface ExecutableTool {
  readonly name: string;
  execute(
    toolCallId: string,
    params: unknown,
    signal?: AbortSignal,
    onUpdate?: unknown,
  ): Promise<{ content: { type: string; text?: string }[] }>;
}

describe('hardening: fuzzing pi_fold_context through a real Pi session', () => {
  it(`${RUNS * CALLS_PER_RUN} hostile calls: no crash, every refusal named and inert (runtime and rendered window byte-identical), invariants after every call`, {
    timeout: long ? 1_800_000 : 300_000,
  }, async () => {
    const sessionDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-fuzz-pi-'));
    const { root } = sessionStores(sessionDirectory);
    const projections: Projection[] = [];
    // The cost default. Each call is followed by a projection of the same transcript; those used
    // to count as requests that appended nothing, shrinking the observed pace until the scheduler
    // committed on its own (causes ['commit'] after a refused call). They no longer count.
    const fold = { settings: SMALL_BUDGET_SETTINGS, settingsPath: join(sessionDirectory, 'absent-settings.json') };
    // Another session in the same directory and store: its fold ids are the "foreign" pool.
    const other = await openScriptedPi({
      script: readingScript(() => 14),
      sessionDirectory,
      fold,
      toolCallIdPrefix: 'other_',
    });
    await other.session.prompt('Fill another session.');
    await settle(other.session);
    const foreign = [
      ...(await other.registration.sessions.forSession(other.sessionManager)).runtime.view.lattice.allRecords(),
    ].map((record) => record.id);
    other.session.dispose();
    expect(foreign.length).toBeGreaterThan(0);

    // The real fs store behind a switch: some calls meet a full disk when the action saves state.
    const faults = new FaultSwitch();
    const pi = await openScriptedPi({
      script: readingScript(() => 16),
      sessionDirectory,
      fold: {
        ...fold,
        foldStore: new FaultyFoldStore(new FsFoldStore({ root }), { faults }),
        projectionSink: { specificationVersion: 'v1', accept: (projection) => projections.push(projection) },
      },
    });
    await pi.session.prompt('Read blobs.');
    await settle(pi.session);
    const folding = await pi.registration.sessions.forSession(pi.sessionManager);
    const runtime = folding.runtime;
    const store = runtime.view.foldStore;
    const tool = (pi.session.agent.state.tools as unknown as ExecutableTool[]).find(
      (candidate) => candidate.name === 'pi_fold_context',
    );
    expect(tool, 'Pi runs the registered pi_fold_context').toBeDefined();
    const entries = () =>
      folding.mapper.map(pi.session.agent.state.messages as never, pi.sessionManager.getBranch()).entries;
    const counts = { calls: 0, refused: 0, accepted: 0, budgetRefusals: 0 };
    const codes = new Map<string, number>();
    let callNumber = 0;

    const checkProjection = async (): Promise<Projection | undefined> => {
      try {
        await runtime.project(entries());
      } catch (error) {
        if (FoldError.isInstance(error) && error.code === 'BUDGET.EXCEEDED') {
          counts.budgetRefusals += 1;
          return undefined;
        }
        throw error;
      }
      const latest = projections.at(-1)!;
      expect(pairingViolations(latest.messages)).toEqual([]);
      expect(appendOnlyViolations(projections.slice(-2))).toEqual([]);
      expect(latest.ledger.estimatedTokens, 'I6: nothing over the budget is sent').toBeLessThanOrEqual(
        latest.ledger.budgetTokens,
      );
      expect(
        forestViolations([...runtime.view.lattice.allRecords()], (id) => runtime.view.index.positionOf(id)),
      ).toEqual([]);
      return latest;
    };

    // The first projection of our own catches up with what Pi appended after its last request.
    await checkProjection();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(hostileCall, fc.integer({ min: 0, max: 9 })), {
          minLength: CALLS_PER_RUN,
          maxLength: CALLS_PER_RUN,
        }),
        async (steps) => {
          for (const [call, roll] of steps) {
            const diskFull = roll === 0;
            const args = resolveCall(call, livePools(runtime, foreign));
            const before = runtimeFingerprint(runtime);
            const bytesBefore = projections.length === 0 ? undefined : serialize(projections.at(-1)!.messages);
            counts.calls += 1;
            let refusal: unknown;
            if (diskFull) faults.refuse(['state']);
            try {
              await tool!.execute(`fuzz_${(callNumber += 1)}`, args);
              counts.accepted += 1;
            } catch (error) {
              refusal = error;
            } finally {
              faults.accept();
            }
            if (refusal !== undefined) {
              counts.refused += 1;
              const code = String((refusal as { code?: unknown }).code);
              codes.set(code, (codes.get(code) ?? 0) + 1);
              // A refusal by the store names the store's reason; any other names the call's own fault.
              if (diskFull && code === 'STORE.WRITE_FAILED')
                expect(String((refusal as Error).message)).toMatch(/ENOSPC/);
              else expect(refusalProblems(refusal, args), JSON.stringify(args).slice(0, 300)).toEqual([]);
              const after = runtimeFingerprint(runtime);
              if (after !== before) {
                let at = 0;
                while (at < after.length && after[at] === before[at]) at += 1;
                expect.fail(
                  `refused ${code} (${String((refusal as Error).message).slice(0, 160)}) changed the runtime at: …${before.slice(Math.max(0, at - 120), at + 200)}… became …${after.slice(Math.max(0, at - 120), at + 200)}…`,
                );
              }
            }
            const projected = await checkProjection();
            if (refusal !== undefined && projected !== undefined && bytesBefore !== undefined) {
              // A refusal queues no rewrite: the next request extends the one before byte for byte
              // (it may append what the runtime itself decided meanwhile, such as a notice).
              expect(projected.ledger.causes, 'a refusal queued a rewrite').toEqual([]);
              expect(serialize(projected.messages).startsWith(bytesBefore)).toBe(true);
            }
          }
        },
      ),
      { numRuns: RUNS, seed: 4242 },
    );
    // docs/behaviour.md I2 at the end: every fold of the session reads back verified from the store.
    for (const record of runtime.view.lattice.allRecords())
      await readFoldSource(store, (id) => runtime.view.lattice.record(id), record.id);
    // The store root only holds the store's own layout.
    expect(pi.errors).toEqual([]);
    const top = [...codes.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([code, count]) => `${code}=${count}`)
      .join(' ');
    expect(faults.refusals.state, 'some mutating calls met the full disk').toBeGreaterThan(0);
    console.info(
      `[fuzz pi] ${counts.calls} calls (${faults.refusals.state} met a full disk on saving state): ${counts.accepted} accepted, ${counts.refused} refused (${top}), ${counts.budgetRefusals} budget refusals; store root ${root}`,
    );
    pi.session.dispose();
    rmSync(sessionDirectory, { recursive: true, force: true });
  });
});
