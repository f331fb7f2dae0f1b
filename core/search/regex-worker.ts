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

/**
 * Code units of one text's stretch handed to the worker at once: a text longer than this is
 * matched stretch by stretch (text-stretches.ts), so the worker never holds more of it.
 */
export const SEARCH_STRETCH_UNITS = 1024 * 1024;

/**
 * A regular expression run at the speed of a plain one covers at least this many code units
 * within the search bound; one that covered fewer when the bound ran out is the reason for the
 * refusal, and the text's size is when it covered more.
 */
export const SEARCH_FAIR_UNITS = SEARCH_BATCH_UNITS;

/** What is left of one search's matching time, and what it covered; shared by its batches. */
export interface MatchBudget {
  readonly limitMs: number;
  remainingMs: number;
  /** Code units the worker finished matching within the bound. */
  matchedUnits: number;
  /** Code units of the largest text the search met (or is matching), for a refusal to name. */
  largestTextUnits: number;
}

export function matchBudget(limitMs: number = SEARCH_REGEX_TIME_LIMIT_MS): MatchBudget {
  return { limitMs, remainingMs: limitMs, matchedUnits: 0, largestTextUnits: 0 };
}

/**
 * A stretch of a longer text: matched from `from`, keeping matches that start before `to`
 * (indices into `text`). The text before `from` is context only (a word boundary or an
 * anchor at `from` reads the char before it).
 */
export interface TextStretch {
  readonly text: string;
  readonly from: number;
  readonly to: number;
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
  texts: readonly (string | TextStretch)[],
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
    for (const text of texts) budget.matchedUnits += typeof text === 'string' ? text.length : text.to - text.from;
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
  request: { source: string; flags: string; texts: readonly (string | TextStretch)[]; wanted: number },
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

/**
 * The refusal of a search that ran out of its bound, naming the reason: an expression that
 * covered fewer than SEARCH_FAIR_UNITS in the bound is too slow (`ACTION.UNSAFE_PATTERN`);
 * one that covered more met more text than the bound allows (`ACTION.SEARCH_TOO_LARGE`).
 */
export function outOfTime(budget: MatchBudget, pattern: string): FoldError {
  const clipped = pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
  const seconds = budget.limitMs / 1000;
  const fairUnits = (SEARCH_FAIR_UNITS * budget.limitMs) / SEARCH_REGEX_TIME_LIMIT_MS;
  const details = {
    pattern: clipped,
    limitMs: budget.limitMs,
    matchedUnits: budget.matchedUnits,
    largestTextUnits: budget.largestTextUnits,
  };
  if (budget.matchedUnits >= fairUnits) {
    return new FoldError(
      'ACTION.SEARCH_TOO_LARGE',
      `search: the text is too large to match the regular expression ${JSON.stringify(clipped)} within the search bound of ${seconds} s: it matched ${megabytes(budget.matchedUnits)} in that time, and the largest text it met holds ${megabytes(budget.largestTextUnits)}; the expression is not at fault. Search a literal, put a literal the expression must contain into it (text without it is skipped), or narrow it with within`,
      { details: { ...details, reason: 'text-size' } },
    );
  }
  return new FoldError(
    'ACTION.UNSAFE_PATTERN',
    `search: the regular expression ${JSON.stringify(clipped)} did not finish within the search bound of ${seconds} s of matching: it matched only ${megabytes(budget.matchedUnits)} in that time, too slow for its text; search a literal, narrow it with within, or use a simpler expression (fewer wildcards and branches)`,
    { details: { ...details, reason: 'pattern' } },
  );
}

function megabytes(units: number): string {
  return `${(units / (1024 * 1024)).toFixed(1)} Mi chars`;
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
    const matches = texts.map((item) => {
      const found = [];
      if (left <= 0) return found;
      const text = typeof item === 'string' ? item : item.text;
      const to = typeof item === 'string' ? text.length : item.to;
      compiled.lastIndex = typeof item === 'string' ? 0 : item.from;
      for (let match = compiled.exec(text); match !== null; match = compiled.exec(text)) {
        if (match.index >= to) break;
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
