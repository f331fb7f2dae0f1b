/**
 * What a long history costs Pi per request, three ways, at several history sizes: the host
 * alone on the raw history (the reference), a `context` hook that rewrites the whole list into
 * the folded window before every request (the way pi-fold lands folds today), and the same
 * folded window left to Pi as `context_edit` entries, with a `context` hook that only checks
 * it and a `turn_end` boundary handler (the edit path needs one); then pi-fold itself on the raw
 * history, landing through Pi's edits (`pi-fold`) and through the hook (`pi-fold-hook`). Needs Pi ≥ 0.87:
 *   lab/peers/run-on-pi.sh 1.6.0 bench/pi/run-context-edit-bench.ts [--sizes 10,30,100] [--arms host,edits]
 * Per request it times, inside one real AgentSession, the span from the end of the previous
 * tool call to the provider's call (Pi's turn boundary, its projection, the `context` event's
 * copy, the hooks, the conversion to provider messages), split at the first `context` handler.
 * See docs/pi-context-edits.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { type PiFoldRegistration, registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { openScriptedHostAlone, PI_VERSION, type ScriptedReply, settle } from '../../testing/pi/scripted-pi.ts';
import { isFolded, placeholderText, type SessionFileShape, writeSessionFile } from './edited-session-file.ts';
import { latencyStats } from './latency-stats.ts';

/** `edits-bare`: the edited history with the checking hook but no `turn_end` handler, to show what Pi's boundary costs. */
/** `pi-fold` and `pi-fold-hook`: pi-fold itself on the raw history, landing by edits or by the `context` hook. */
type Arm = 'host' | 'rewrite' | 'edits' | 'edits-bare' | 'pi-fold' | 'pi-fold-hook';
const ARMS: readonly Arm[] = ['host', 'rewrite', 'edits', 'edits-bare', 'pi-fold', 'pi-fold-hook'];
/** pi-fold's budget on these sessions: the host's window is set far above any history, so the band is pi-fold's own. */
const PI_FOLD_BUDGET = 200_000;
/**
 * Batches per turn in pi-fold's sessions: only closed turns fold, so the history is written as
 * closed turns and only the last one stays open and raw.
 */
const PI_FOLD_TURN_BATCHES = 40;
const REQUESTS = 24;
const RESULT_BYTES = 24_000;

interface Timings {
  /** End of the previous tool call to the first `context` handler. */
  readonly beforeHook: number[];
  /** First `context` handler to the provider's call. */
  readonly fromHook: number[];
  readonly total: number[];
}

type Message = { role: string; content?: unknown; toolCallId?: string; timestamp?: number };

/** The history batch a message belongs to, by its call id, or undefined for a message of the run. */
function historyIndex(message: Message): number | undefined {
  const id =
    message.role === 'toolResult'
      ? message.toolCallId
      : message.role === 'assistant' && Array.isArray(message.content)
        ? (message.content as { type: string; id?: string }[]).find((block) => block.type === 'toolCall')?.id
        : undefined;
  return id?.startsWith('hist_') ? Number(id.slice(5)) : undefined;
}

/** Loaded first: stamps the end of each tool call, the first `context` handler and the provider's call. */
function timingExtension(timings: Timings): (pi: ExtensionAPI) => void {
  return (pi) => {
    let toolEnded: number | undefined;
    let hookStarted = 0;
    pi.on('tool_execution_end', () => {
      toolEnded = performance.now();
    });
    pi.on('context', () => {
      hookStarted = performance.now();
    });
    pi.on('before_provider_request', () => {
      const now = performance.now();
      if (toolEnded === undefined) return;
      timings.beforeHook.push(hookStarted - toolEnded);
      timings.fromHook.push(now - hookStarted);
      timings.total.push(now - toolEnded);
      toolEnded = undefined;
    });
  };
}

/** Today's landing: every request, the whole list is walked and the folded window built from it. */
function rewritingHook(shape: SessionFileShape): (pi: ExtensionAPI) => void {
  return (pi) =>
    pi.on('context', (event) => {
      const out: typeof event.messages = [];
      for (const message of event.messages) {
        const index = historyIndex(message as Message);
        if (index === undefined || !isFolded(shape, index)) out.push(message);
        else if (message.role === 'assistant' && index % shape.chapterSize === 0)
          out.push({
            role: 'user',
            content: [{ type: 'text', text: placeholderText(shape, index) }],
            timestamp: message.timestamp,
          });
      }
      return { messages: out };
    });
}

/** The edit path's hooks: a check of the projected list (no folded batch left raw) and a boundary handler. */
function checkingHook(
  shape: SessionFileShape,
  misses: { count: number },
  boundary: boolean,
): (pi: ExtensionAPI) => void {
  return (pi) => {
    pi.on('context', (event) => {
      for (const message of event.messages) {
        const index = historyIndex(message as Message);
        if (index !== undefined && isFolded(shape, index) && message.role === 'toolResult') misses.count += 1;
      }
    });
    if (boundary)
      (pi as unknown as { on(event: 'turn_end', handler: () => undefined): void }).on('turn_end', () => undefined);
  };
}

/** pi-fold as a Pi user installs it, on the raw history: its first request commits, the rest are measured with it. */
function piFold(arm: 'pi-fold' | 'pi-fold-hook', registered: PiFoldRegistration[]): (pi: ExtensionAPI) => void {
  return (pi) => {
    registered.push(
      registerPiFold(pi, {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: { providerInputBudget: PI_FOLD_BUDGET },
        landing: arm === 'pi-fold' ? 'session-edits' : 'context-hook',
      }),
    );
  };
}

function hooksOf(arm: Arm, shape: SessionFileShape, misses: { count: number }, registered: PiFoldRegistration[]) {
  if (arm === 'rewrite') return [rewritingHook(shape)];
  if (arm === 'host') return [];
  if (arm === 'pi-fold' || arm === 'pi-fold-hook') return [piFold(arm, registered)];
  return [checkingHook(shape, misses, arm === 'edits')];
}

async function runArm(arm: Arm, shape: SessionFileShape, folder: string): Promise<ArmResult> {
  const sessionFile = join(folder, `${arm}.jsonl`);
  const fileBytes = await writeSessionFile(sessionFile, shape, {
    cwd: folder,
    edited: arm.startsWith('edits'),
    // pi-fold folds a closed turn of at most CHAPTER_MAX_UNITS units into one placeholder.
    ...(arm.startsWith('pi-fold') ? { turnBatches: PI_FOLD_TURN_BATCHES } : {}),
  });
  const timings: Timings = { beforeHook: [], fromHook: [], total: [] };
  const misses = { count: 0 };
  let sent = { messages: 0, bytes: 0 };
  let turn = 0;
  const registered: PiFoldRegistration[] = [];
  const hooks = hooksOf(arm, shape, misses, registered);
  const pi = await openScriptedHostAlone({
    sessionFile,
    sessionDirectory: folder,
    compaction: false,
    contextWindow: 2_000_000_000,
    toolCallIdPrefix: 'run_',
    otherExtensions: { before: [timingExtension(timings), ...hooks] },
    script: (request, history): ScriptedReply => {
      sent = {
        messages: request.messages.length,
        bytes: request.serialized.reduce((sum, line) => sum + line.length, 0),
      };
      // The recorded requests of a long history would hold every window in memory: keep none.
      (history as unknown[]).length = 0;
      turn += 1;
      return turn <= REQUESTS
        ? { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: 100_000 + turn, size: 2_000 } }] }
        : { kind: 'text', text: 'done' };
    },
  });
  await pi.session.prompt('Continue.');
  await settle(pi.session);
  if (pi.errors.length > 0) throw new Error(`${arm}: Pi reported ${pi.errors.join('; ')}`);
  if (misses.count > 0) throw new Error(`${arm}: ${misses.count} folded results reached the context hook raw`);
  if (timings.total.length === 0)
    throw new Error(`${arm}: no request reached the provider (Pi said: ${pi.notices.join('; ') || 'nothing'})`);
  for (const registration of registered) {
    const folding = await registration.sessions.existing(pi.sessionManager.getSessionId());
    if (folding === undefined || folding.runtime.view.visibleFolds.length === 0)
      throw new Error(`${arm}: pi-fold folded nothing, so the arm measured no landing`);
  }
  pi.session.dispose();
  return { fileBytes, timings, sent };
}

function parseArms(argv: readonly string[]): readonly Arm[] {
  const at = argv.indexOf('--arms');
  if (at < 0) return ARMS;
  const arms = (argv[at + 1] ?? '').split(',');
  const unknown = arms.filter((arm) => !(ARMS as readonly string[]).includes(arm));
  if (unknown.length > 0) throw new Error(`--arms: unknown ${unknown.join(', ')}; expected some of ${ARMS.join(',')}`);
  return arms as Arm[];
}

function parseSizes(argv: readonly string[]): number[] {
  const at = argv.indexOf('--sizes');
  const text = at < 0 ? '10,30,100' : argv[at + 1];
  const sizes = (text ?? '').split(',').map(Number);
  if (sizes.some((size) => !Number.isFinite(size) || size <= 0))
    throw new Error(`--sizes: expected MB values like 10,30,100, got ${text}`);
  return sizes;
}

const ms = (values: readonly number[]) => {
  const { p50, mean } = latencyStats(values);
  return `p50 ${p50.toFixed(2)} ms (mean ${mean.toFixed(2)})`;
};

function shapeOf(megabytes: number): SessionFileShape {
  return {
    batches: Math.ceil((megabytes * 1_000_000) / (RESULT_BYTES + 420)),
    resultBytes: RESULT_BYTES,
    keepRaw: 20,
    chapterSize: 100,
  };
}

interface ArmResult {
  readonly fileBytes: number;
  readonly timings: Timings;
  readonly sent: { messages: number; bytes: number };
}

/** One arm at one size in this process; the parent reads the result line. */
async function runOne(megabytes: number, arm: Arm): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), 'pi-fold-edit-bench-'));
  try {
    console.log(`${RESULT_PREFIX}${JSON.stringify(await runArm(arm, shapeOf(megabytes), folder))}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const RESULT_PREFIX = 'ARM-RESULT ';

/**
 * Each arm runs in a process of its own: a long raw history left in the heap by one arm
 * slows the next one's requests (its garbage collections scan that heap), which would
 * charge one arm for another's memory.
 */
function runInChild(megabytes: number, arm: Arm): ArmResult {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, process.argv[1]!, '--one', '--sizes', String(megabytes), '--arms', arm],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const line = child.stdout.split('\n').find((text) => text.startsWith(RESULT_PREFIX));
  if (child.status !== 0 || line === undefined)
    throw new Error(`${arm} at ${megabytes} MB: the child exited ${child.status} without a result`);
  return JSON.parse(line.slice(RESULT_PREFIX.length)) as ArmResult;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const sizes = parseSizes(argv);
  const arms = parseArms(argv);
  if (argv.includes('--one')) return runOne(sizes[0]!, arms[0]!);
  console.log(`context-edit bench on Pi ${PI_VERSION}, Node ${process.version}: ${REQUESTS} measured requests per arm`);
  for (const megabytes of sizes) {
    let host: number | undefined;
    for (const arm of arms) {
      const { fileBytes, timings, sent } = runInChild(megabytes, arm);
      const p50 = latencyStats(timings.total).p50;
      if (arm === 'host') host = p50;
      const ratio = host === undefined ? '' : ` = ${(p50 / host).toFixed(2)}× host`;
      console.log(
        `${String(megabytes).padStart(4)} MB ${arm.padEnd(10)} file ${(fileBytes / 1e6).toFixed(1)} MB, ${shapeOf(megabytes).batches} batches; sent ${sent.messages} msgs ${(sent.bytes / 1e6).toFixed(2)} MB; ` +
          `per request ${ms(timings.total)}${ratio}; before hook ${ms(timings.beforeHook)}, hook→provider ${ms(timings.fromHook)}`,
      );
    }
  }
}

await main();
