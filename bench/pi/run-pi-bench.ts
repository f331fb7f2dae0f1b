/**
 * The Pi adapter's own time per request: the `context` hook (mapping Pi's messages to
 * session entries, the engine's projection, converting back), measured inside a real
 * AgentSession driven offline by a scripted provider. 95 requests, 24 KB tool results,
 * a 170k-token window. Also every other pi-fold hook the request went through (time-hooks.ts):
 * the sum is what pi-fold holds Pi up per request wherever its work sits, so it compares
 * builds that do the same work in different hooks. Run: `npm run bench:pi` (`-- --like-before`:
 * the core work alone, see like-before-argument.ts).
 */
import { PiEntryMapper } from '../../adapters/hosts/pi/message-entries.ts';
import { OwnershipMonitor } from '../../adapters/hosts/pi/ownership-monitor.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import { resolveSettings, type SchedulingMode } from '../../core/settings/settings.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { latencyLine } from './latency-stats.ts';
import { benchFoldOptions, likeBeforeArgument } from './like-before-argument.ts';
import { replyOnArgument } from './reply-on-argument.ts';
import { emptyHookTimes, otherHooksLine, timeHooks } from './time-hooks.ts';

const REQUESTS = 95;
const RESULT_BYTES = 24 * 1024;
const WINDOW = 170_000;

/** The hook benchmark's lines keep their 34-column labels. */
const summary = (label: string, values: readonly number[]): string => latencyLine(label, values, 34);

/** Per request: the time to keep the texts plus the time to find them (calls come in pairs). */
function pairSums(values: readonly number[]): number[] {
  const sums: number[] = [];
  for (let index = 0; index + 1 < values.length; index += 2) sums.push(values[index]! + values[index + 1]!);
  return sums;
}

/**
 * The session's input dollars at the seeds' ledger, billed like the scripted provider counts:
 * the messages shared with the previous request are read from cache, the rest is fresh.
 */
function inputDollars(requests: readonly { serialized: readonly string[]; promptTokens: number }[]): {
  dollars: number;
  fresh: number;
  cacheRead: number;
} {
  let fresh = 0;
  let cacheRead = 0;
  let dollars = 0;
  requests.forEach((request, index) => {
    const previous = requests[index - 1];
    let shared = 0;
    for (
      let position = 0;
      previous !== undefined &&
      position < previous.serialized.length &&
      previous.serialized[position] === request.serialized[position];
      position += 1
    )
      shared += request.serialized[position]!.length;
    const read = previous === undefined ? 0 : Math.min(request.promptTokens, Math.floor(shared / 4));
    fresh += request.promptTokens - read;
    cacheRead += read;
    dollars += priceRequest(DEFAULT_PRICE_LIST, {
      input: request.promptTokens - read,
      cacheRead: read,
      cacheWrite: 0,
      output: 0,
    });
  });
  return { dollars, fresh, cacheRead };
}

/** `--scheduling band` measures the seed's band (the default before the cost policy) on the same session. */
function schedulingArgument(): SchedulingMode {
  const at = process.argv.indexOf('--scheduling');
  return resolveSettings({ scheduling: at < 0 ? 'cost' : process.argv[at + 1] }).scheduling;
}

/**
 * Time the adapter's steps inside the hook: message → entry mapping, the engine's projection,
 * and the ownership check's share (keeping the sent texts in the hook, finding them in the
 * provider's body). Patches the prototypes, so every session of this process is timed.
 */
function timeAdapterSteps(): { mapping: number[]; engine: number[]; ownership: number[] } {
  const mapping: number[] = [];
  const originalMap = PiEntryMapper.prototype.map;
  PiEntryMapper.prototype.map = function timedMap(this: PiEntryMapper, ...args: Parameters<typeof originalMap>) {
    const started = performance.now();
    const mapped = originalMap.apply(this, args);
    mapping.push(performance.now() - started);
    return mapped;
  };
  const engine: number[] = [];
  const originalProject = FoldRuntime.prototype.project;
  FoldRuntime.prototype.project = async function timedProject(
    this: FoldRuntime,
    ...args: Parameters<typeof originalProject>
  ) {
    const started = performance.now();
    try {
      return await originalProject.apply(this, args);
    } finally {
      engine.push(performance.now() - started);
    }
  };
  const ownership: number[] = [];
  for (const method of ['projected', 'checkPayload'] as const) {
    const original = OwnershipMonitor.prototype[method] as (...args: unknown[]) => unknown;
    (OwnershipMonitor.prototype as unknown as Record<string, unknown>)[method] = function timed(
      this: OwnershipMonitor,
      ...args: unknown[]
    ) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        ownership.push(performance.now() - started);
      }
    };
  }
  return { mapping, engine, ownership };
}

async function main(): Promise<void> {
  const scheduling = schedulingArgument();
  const replyOn = replyOnArgument();
  const likeBefore = likeBeforeArgument();
  if (likeBefore && process.argv.includes('--scheduling'))
    throw new Error('--like-before sets the scheduling (band); drop --scheduling');
  const hooks = emptyHookTimes();
  const hook = hooks.context;
  const { mapping, engine, ownership } = timeAdapterSteps();
  const pi = await openScriptedPi({
    script: (request) =>
      request.index >= REQUESTS - 1
        ? { kind: 'text', text: 'done' }
        : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: RESULT_BYTES } }] },
    fold: benchFoldOptions(likeBefore, { scheduling }),
    contextWindow: WINDOW,
    wrapExtensionApi: timeHooks(hooks),
    replyOn,
  });
  const started = performance.now();
  await pi.session.prompt('Read 94 blobs of 24 KB.');
  await settle(pi.session);
  const wall = performance.now() - started;
  const peak = Math.max(...pi.requests.map((request) => request.promptTokens));
  const commits = pi.ledger.filter((row) => row.foldsLanded > 0).length;
  const rewrites = pi.ledger.filter((row) => row.causes.length > 0).length;
  console.log(
    `pi adapter benchmark: ${pi.requests.length} requests, ${RESULT_BYTES} B tool results, ${WINDOW}-token window, scripted replies on: ${replyOn}${likeBefore ? ', core work alone (band, no spill, no OpenTelemetry, no request log)' : ''} (Node ${process.version})`,
  );
  console.log(summary('context hook (mapping + engine)', hook));
  console.log(
    `slowest requests: ${hook
      .map((ms, index) => ({ ms, request: index + 1, commit: (pi.ledger[index]?.foldsLanded ?? 0) > 0 }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, 6)
      .map((slow) => `#${slow.request} ${slow.ms.toFixed(1)} ms${slow.commit ? ' (commit)' : ''}`)
      .join(', ')}`,
  );
  console.log(summary('  of which message→entry mapping', mapping));
  console.log(summary('  of which engine (runtime.project)', engine));
  console.log(
    summary(
      '  adapter only (hook − engine)',
      hook.map((ms, index) => ms - (engine[index] ?? 0)),
    ),
  );
  console.log(summary('every pi-fold hook of the request', hooks.everyHook));
  console.log(`  hooks other than context, whole run: ${otherHooksLine(hooks)}`);
  console.log(summary('ownership check (keep + find texts)', pairSums(ownership)));
  console.log(
    `peak prompt ${peak} tokens · commits ${commits} · rewrites ${rewrites} · unattributed ${pi.ledger.filter((row) => row.unattributed).length} · whole run ${(wall / 1000).toFixed(1)} s`,
  );
  const input = inputDollars(pi.requests);
  console.log(
    `session input (${likeBefore ? 'band' : scheduling} scheduling, ${DEFAULT_PRICE_LIST.name}): $${input.dollars.toFixed(4)} · fresh ${input.fresh} tokens · cache read ${input.cacheRead} tokens`,
  );
  if (pi.errors.length > 0) console.log(`extension errors: ${pi.errors.join('; ')}`);
  pi.session.dispose();
}

await main();
