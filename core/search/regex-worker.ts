import { Worker } from 'node:worker_threads';
import { FoldError } from '../fold-error.ts';

/**
 * The most time one regular-expression search may spend matching, over all its batches.
 * V8's linear-time engine is linear in the text, but its cost per char grows with the
 * pattern (each dot, each branch of an alternation is a state it steps on every char), so a
 * short pattern can still take minutes over a long folded history. The matching runs on a
 * worker thread, so the host's event loop stays free however long it takes, and a search
 * that outruns this bound is refused and its worker stopped (docs/behaviour.md B4).
 */
export const SEARCH_REGEX_TIME_LIMIT_MS = 10_000;

/** Code units of text handed to the worker at once: a page that fills early reads no further. */
export const SEARCH_BATCH_UNITS = 4 * 1024 * 1024;

/** What is left of one search's matching time; shared by its batches. */
export interface MatchBudget {
  readonly limitMs: number;
  remainingMs: number;
}

export function matchBudget(limitMs: number = SEARCH_REGEX_TIME_LIMIT_MS): MatchBudget {
  return { limitMs, remainingMs: limitMs };
}

/**
 * Where a compiled expression matches in each text: per text, flat `[index, length, …]` pairs
 * in UTF-16 code units, exactly the matches `exec` finds on a global expression (an empty
 * match steps one unit on). Stops once `wanted` matches were found in all, so a full page
 * costs no more matching than it shows.
 * @throws FoldError `ACTION.UNSAFE_PATTERN` when the budget runs out; the worker is stopped.
 */
export async function matchInWorker(
  expression: RegExp,
  texts: readonly string[],
  wanted: number,
  budget: MatchBudget,
  pattern: string,
): Promise<number[][]> {
  if (budget.remainingMs <= 0) throw outOfTime(budget, pattern);
  const worker = idleWorkers.pop() ?? startWorker();
  const started = performance.now();
  let timedOut = false;
  try {
    const matches = await exchange(
      worker,
      { source: expression.source, flags: expression.flags, texts, wanted },
      budget,
    );
    if (idleWorkers.length < MAX_IDLE_WORKERS) idleWorkers.push(worker);
    else void worker.terminate();
    return matches;
  } catch (error) {
    void worker.terminate();
    timedOut = error instanceof TimeoutSignal;
    throw FoldError.isInstance(error) || !(error instanceof TimeoutSignal) ? error : outOfTime(budget, pattern);
  } finally {
    // The deadline timer is the authority: it may fire a fraction of a millisecond before the
    // clock says the budget is spent (timers run on a coarser clock), and a stopped search
    // must leave nothing of its budget for the next page.
    budget.remainingMs = timedOut ? 0 : budget.remainingMs - (performance.now() - started);
  }
}

class TimeoutSignal extends Error {}

function exchange(
  worker: Worker,
  request: { source: string; flags: string; texts: readonly string[]; wanted: number },
  budget: MatchBudget,
): Promise<number[][]> {
  return new Promise((resolve, reject) => {
    const settle = (outcome: () => void): void => {
      clearTimeout(timer);
      worker.off('message', onMessage);
      worker.off('error', onError);
      worker.off('exit', onExit);
      outcome();
    };
    const onMessage = (reply: { matches?: number[][]; error?: string }): void =>
      settle(() =>
        reply.matches === undefined
          ? reject(new FoldError('INVARIANT.BROKEN', `search: the matching worker failed: ${reply.error}`))
          : resolve(reply.matches),
      );
    const onError = (error: unknown): void =>
      settle(() => reject(new FoldError('INVARIANT.BROKEN', 'search: the matching worker failed', { cause: error })));
    const onExit = (code: number): void =>
      settle(() => reject(new FoldError('INVARIANT.BROKEN', `search: the matching worker exited (code ${code})`)));
    // This timer, not the worker, keeps the process alive while a search waits: idle
    // workers are unreferenced so a host can exit with workers held for its next search.
    const timer = setTimeout(() => settle(() => reject(new TimeoutSignal())), Math.ceil(budget.remainingMs));
    worker.on('message', onMessage);
    worker.on('error', onError);
    worker.on('exit', onExit);
    worker.postMessage(request);
  });
}

function outOfTime(budget: MatchBudget, pattern: string): FoldError {
  const clipped = pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
  return new FoldError(
    'ACTION.UNSAFE_PATTERN',
    `search: the regular expression ${JSON.stringify(clipped)} did not finish within the search bound of ${budget.limitMs / 1000} s of matching; search a literal, narrow it with within, or use a simpler expression (fewer wildcards and branches)`,
    { details: { pattern: clipped, limitMs: budget.limitMs } },
  );
}

const MAX_IDLE_WORKERS = 2;
const idleWorkers: Worker[] = [];

// CommonJS evaluated on the worker thread: a file would need a build step of its own, and
// this has to run the same under tsx, vitest and the compiled package.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
require('node:v8').setFlagsFromString('--enable-experimental-regexp-engine');
let compiled;
parentPort.on('message', ({ source, flags, texts, wanted }) => {
  try {
    if (compiled === undefined || compiled.source !== source || compiled.flags !== flags)
      compiled = new RegExp(source, flags);
    let left = wanted;
    const matches = texts.map((text) => {
      const found = [];
      if (left <= 0) return found;
      compiled.lastIndex = 0;
      for (let match = compiled.exec(text); match !== null; match = compiled.exec(text)) {
        if (match[0].length === 0) compiled.lastIndex += 1;
        found.push(match.index, match[0].length);
        left -= 1;
        if (left <= 0) break;
      }
      return found;
    });
    parentPort.postMessage({ matches });
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
});
`;

function startWorker(): Worker {
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  worker.unref();
  // An idle worker that fails is dropped, not left to crash the host with an unheard error.
  worker.on('error', () => undefined);
  worker.once('exit', () => {
    const held = idleWorkers.indexOf(worker);
    if (held >= 0) idleWorkers.splice(held, 1);
  });
  return worker;
}
