import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';
import { seededRandom } from '../../testing/seeded-random.ts';

/** Where the lab's clock starts: far enough ahead that Pi's "is this message older than the last compaction" check (fake message time against a real entry time) never mistakes a new message for an old one. */
export const LAB_CLOCK_START = Date.UTC(2100, 0, 1);

/** The lab clock's reading in ms (one arm runs at a time, so one clock serves them all). */
let labClock = LAB_CLOCK_START;

/**
 * Move the lab clock on to `offsetMs` after its start, never back: a replay steps it to each
 * recorded request's time, so Pi, pi-fold's cache clock and the simulated cache all see the
 * recorded idle gaps (`lab/replay/replay-clock.ts`).
 */
export function advanceLabClock(offsetMs: number): void {
  labClock = Math.max(labClock, LAB_CLOCK_START + Math.round(offsetMs));
}

/** Seconds on the lab clock since its start, read without moving it. */
export function labClockSeconds(): number {
  return (labClock - LAB_CLOCK_START) / 1000;
}

/**
 * Run `body` with `crypto.randomUUID` drawn from a seeded generator and `Date.now` replaced by
 * a clock that advances one millisecond per reading from a fixed start. Pi names session entries
 * with `randomUUID().slice(0, 8)` and fold ids derive from entry ids, so without this the
 * placeholders' bytes (and their token counts) would differ between two runs of one seed.
 * Message timestamps are part of the host bytes a fold's SHA-256 covers (shown in its
 * placeholder), so a real clock would also change the window between runs. The originals
 * are restored afterwards; arms run one at a time.
 */
export async function withLabDeterminism<T>(seed: number, body: () => Promise<T>): Promise<T> {
  const original = crypto.randomUUID;
  const originalNow = Date.now;
  labClock = LAB_CLOCK_START;
  Date.now = () => (labClock += 1);
  const random = seededRandom(seed ^ 0x5eed1d5);
  const hex = (digits: number): string =>
    Array.from({ length: digits }, () => Math.floor(random() * 16).toString(16)).join('');
  crypto.randomUUID = (() =>
    `${hex(8)}-${hex(4)}-4${hex(3)}-${(8 + Math.floor(random() * 4)).toString(16)}${hex(3)}-${hex(12)}`) as typeof crypto.randomUUID;
  syncBuiltinESMExports();
  try {
    return await body();
  } finally {
    crypto.randomUUID = original;
    Date.now = originalNow;
    syncBuiltinESMExports();
  }
}
