import { describe, expect, it } from 'vitest';
import { formatStatus, statusReport } from '../../core/actions/status-action.ts';
import { totalChars } from '../../core/render/projection-ledger.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { driveSession, openRuntime, providerTokens, reportUncachedUsage } from '../support/drive-session.ts';

describe('commit telemetry tells what happened: estimates at the commit, provider counts after', () => {
  it('every commit is reported twice and its numbers match the ledger and the reported usage', async () => {
    const { runtime, sink } = await openRuntime();
    const session = new SyntheticSession({ seed: 12, resultChars: [3000, 16_000] });
    const reported = new Map<number, { prompt: number; cacheRead: number }>();
    const logged: unknown[] = [];
    runtime.subscribe({ acceptCommitTelemetry: (event) => logged.push(event) });
    for (let step = 0; step < 120; step += 1) {
      session.step();
      const result = await runtime.project(session.entries);
      const prompt = providerTokens(result.ledger.totalChars);
      const cacheRead = result.ledger.causes.length === 0 ? Math.floor(prompt * 0.9) : Math.floor(prompt * 0.2);
      reported.set(result.ledger.request, { prompt, cacheRead });
      runtime.recordUsage({ input: prompt - cacheRead, cacheRead, cacheWrite: 0, output: 100 });
    }
    const commits = runtime.view.memory.counters.commits;
    expect(commits).toBeGreaterThan(2);
    const events = sink.commitEvents;
    expect(events.filter((event) => event.phase === 'landed')).toHaveLength(commits);
    expect(events.filter((event) => event.phase === 'measured')).toHaveLength(commits);
    expect(logged).toEqual(events);
    for (const event of events.filter((candidate) => candidate.phase === 'measured')) {
      const projectionIndex = sink.projections.findIndex((projection) => projection.ledger.request === event.request);
      const row = sink.projections[projectionIndex]!.ledger;
      const previous = sink.projections[projectionIndex - 1]!;
      expect(event.foldsLanded).toBe(row.foldsLanded);
      expect(event.foldsLanded).toBeGreaterThan(0);
      expect(event.estimatedTokensBefore).toBe(row.preCommitTokens);
      expect(event.estimatedTokensAfter).toBe(row.estimatedTokens);
      expect(event.estimatedTokensAfter).toBeLessThan(event.estimatedTokensBefore);
      expect(event.causes).toEqual(row.causes);
      expect(event.prefixMessagesKept).toBe(row.divergenceIndex);
      // The cache given up: the previous window's bytes after the divergence point.
      const rewrittenChars = totalChars(previous.messages.slice(row.divergenceIndex));
      expect(event.prefixCharsRewritten).toBe(rewrittenChars);
      expect(event.prefixTokensRewritten).toBeGreaterThan(0);
      expect(event.measuredTokensAfter).toBe(reported.get(event.request)!.prompt);
      expect(event.providerCacheRead).toBe(reported.get(event.request)!.cacheRead);
      expect(event.measuredTokensBefore).toBe(reported.get(event.request - 1)!.prompt);
    }
  });

  it('a host listener that throws fails neither the request nor the listeners after it, and status says so', async () => {
    const { runtime, sink } = await openRuntime();
    const session = new SyntheticSession({ seed: 5, resultChars: [3000, 16_000] });
    runtime.subscribe({
      acceptCommitTelemetry: () => {
        throw new Error('log server unreachable');
      },
    });
    const logged: unknown[] = [];
    runtime.subscribe({ acceptCommitTelemetry: (event) => logged.push(event) });
    for (let step = 0; step < 80; step += 1) {
      session.step();
      const result = await runtime.project(session.entries);
      reportUncachedUsage(runtime, result.ledger);
    }
    const commits = runtime.view.memory.counters.commits;
    expect(commits).toBeGreaterThan(0);
    expect(logged).toEqual(sink.commitEvents);
    expect(logged).toHaveLength(2 * commits);
    expect(runtime.view.telemetry.listenerFailures).toBe(2 * commits);
    expect(formatStatus(statusReport(runtime.view))).toContain(
      `telemetry listeners threw ${2 * commits} times (last: log server unreachable); folding went on`,
    );
  });

  it('status shows the latest commits, and says when the provider count is still pending', async () => {
    const { runtime } = await driveSession({ seed: 5, steps: 80 });
    const report = statusReport(runtime.view);
    expect(report.recentCommits.length).toBeGreaterThan(0);
    expect(formatStatus(report)).toMatch(/commit.*\(estimated → provider-measured\)/);
    expect(formatStatus(report)).toMatch(/rewrote ≈\d+ prefix tokens · provider cache read \d+/);
    const session = new SyntheticSession({ seed: 77, resultChars: [20_000, 30_000] });
    const fresh = await openRuntime();
    for (let step = 0; step < 200 && fresh.runtime.view.memory.counters.commits === 0; step += 1) {
      session.step();
      await fresh.runtime.project(session.entries);
    }
    expect(formatStatus(statusReport(fresh.runtime.view))).toContain('provider count pending');
  });
});

describe('action telemetry reports the size of each answer', () => {
  it('answerBytes is the UTF-8 length of the text handed back: whole, cut and sliced peeks, status and a curation answer', async () => {
    const { runtime } = await driveSession({ seed: 5, steps: 90 });
    const reported: { action: string; answerBytes: number }[] = [];
    runtime.subscribe({ acceptAction: (event) => reported.push(event) });
    const fold = runtime.view.visibleFolds[0]!.record.id;
    const mark = runtime.view.memory.marks[0]?.id;
    const requests: Record<string, unknown>[] = [
      { action: 'peek', id: fold },
      { action: 'peek', id: fold, bytes: 1_024 },
      { action: 'peek', id: fold, offset: 700, bytes: 1_024 },
      { action: 'status' },
      ...(mark === undefined
        ? []
        : [{ action: 'brief', id: mark, text: 'reads of the configuration files, résumé ✓' }]),
    ];
    const texts: string[] = [];
    for (const request of requests) texts.push((await runtime.act(request)).text);
    expect(mark, 'a pending mark to brief').toBeDefined();
    expect(reported.map((event) => event.answerBytes)).toEqual(texts.map((text) => Buffer.byteLength(text)));
  });
});
