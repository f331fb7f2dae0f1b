import { FoldRuntime } from '../core/fold-runtime.ts';
import { createCharsCostModel } from '../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../core/settings/settings.ts';
import { sha256Hex } from '../core/util/hashing.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { FoldWarningCode } from '../ports/fold-warning.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import { type ConformanceHarness, check, checkEqual, randomId } from './conformance-support.ts';
import { FaultSwitch, FaultyFoldStore } from './faulty-stores.ts';
import { SyntheticSession } from './synthetic-session.ts';

/** What the host behind a sink received, as far as the suite can ask it. */
export interface ReceivedTraffic {
  /** Request numbers of the projections it took, in order. */
  readonly requests: readonly number[];
  /** `phase@request` of each commit telemetry event, in order (omit when the sink does not take telemetry). */
  readonly commitTelemetry?: readonly string[];
  /** Codes of the warnings it took, in order (omit when the sink does not take warnings). */
  readonly warnings?: readonly FoldWarningCode[];
}

export interface ProjectionSinkConformanceOptions {
  /** A fresh, empty FoldStore for the engine the suite drives (any backend). */
  readonly createFoldStore: () => FoldStore | Promise<FoldStore>;
  /** Ask the host what it received through `sink`; without it only the sink's own behaviour is checked. */
  readonly received?: (sink: ProjectionSink) => ReceivedTraffic;
  /** Prefix of every test name. @default 'ProjectionSink conformance' */
  readonly label?: string;
}

const providerTokens = (chars: number) => Math.ceil(chars / 3.5);

/**
 * The behaviour every ProjectionSink must have, runner-agnostic: it takes every projection
 * of a session without throwing or changing it, and — through `received` — hands on each
 * projection once in request order, each commit's telemetry (landed, then measured), and
 * warnings as coded records.
 */
export function projectionSinkConformance(
  harness: ConformanceHarness,
  createSink: () => ProjectionSink | Promise<ProjectionSink>,
  options: ProjectionSinkConformanceOptions,
): void {
  const label = options.label ?? 'ProjectionSink conformance';

  harness.test(`${label}: declares v1; its calls are functions`, async () => {
    const sink = await createSink();
    checkEqual(sink.specificationVersion, 'v1', 'specificationVersion');
    checkEqual(typeof sink.accept, 'function', 'typeof accept');
    for (const optional of ['acceptCommitTelemetry', 'acceptWarning'] as const) {
      check(
        sink[optional] === undefined || typeof sink[optional] === 'function',
        `${optional} must be a function when present`,
      );
    }
  });

  harness.test(`${label}: takes every projection of a folding session once, in order, and changes none`, async () => {
    const sink = await createSink();
    const runtime = await FoldRuntime.open({
      sessionId: randomId('sink'),
      settings: resolveSettings({ providerInputBudget: 60_000 }),
      foldStore: await options.createFoldStore(),
      costModel: createCharsCostModel(),
      projectionSink: sink,
    });
    const session = new SyntheticSession({ seed: 17, resultChars: [3_000, 12_000] });
    for (let step = 0; step < 60; step += 1) {
      session.step();
      const result = await runtime.project(session.entries);
      const digests = result.messages.map((message) => message.digest);
      checkEqual(
        digests.join(','),
        result.ledger.digests.join(','),
        `request ${result.ledger.request}: messages still match their ledger row`,
      );
      const last = result.messages[result.messages.length - 1]!;
      checkEqual(
        sha256Hex(last.bytes),
        last.digest,
        `request ${result.ledger.request}: the newest message's bytes still match its digest`,
      );
      runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 50 });
    }
    const commits = runtime.view.ledger.filter((row) => row.foldsLanded > 0).map((row) => row.request);
    check(commits.length > 0, 'the session committed (the suite needs commits to check telemetry)');
    const received = options.received?.(sink);
    if (received === undefined) return;
    checkEqual(
      received.requests.join(','),
      Array.from({ length: 60 }, (_, index) => index + 1).join(','),
      'requests received',
    );
    if (received.commitTelemetry !== undefined) {
      const expected = commits.flatMap((request) => [`landed@${request}`, `measured@${request}`]);
      checkEqual(received.commitTelemetry.join(','), expected.join(','), 'commit telemetry received');
    }
  });

  harness.test(`${label}: hears a store outage as coded warnings, and the request still goes out`, async () => {
    const sink = await createSink();
    const faults = new FaultSwitch();
    const foldStore = new FaultyFoldStore(await options.createFoldStore(), { faults });
    // A budget no commit is needed under: the outage is heard through the state saves it refuses.
    const runtime = await FoldRuntime.open({
      sessionId: randomId('sink-outage'),
      settings: resolveSettings({ providerInputBudget: 50_000_000 }),
      foldStore,
      costModel: createCharsCostModel(),
      projectionSink: sink,
    });
    const session = new SyntheticSession({ seed: 23, resultChars: [9_000, 12_000] });
    faults.refuse();
    const codes: FoldWarningCode[] = [];
    for (let step = 0; step < 12; step += 1) {
      session.step();
      const result = await runtime.project(session.entries);
      codes.push(...result.warningRecords.map((warning) => warning.code));
    }
    check(codes.length > 0, 'a store refusing every write produced warnings');
    const received = options.received?.(sink);
    if (received?.warnings !== undefined) checkEqual(received.warnings.join(','), codes.join(','), 'warnings received');
  });
}
