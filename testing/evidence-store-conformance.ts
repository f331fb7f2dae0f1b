import { createHash, randomBytes } from 'node:crypto';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import {
  type ConformanceHarness,
  check,
  checkEqual,
  checkRejects,
  checkSameBytes,
  HOSTILE_IDS,
  HOSTILE_SHAS,
  randomId,
} from './conformance-support.ts';

/** Backend hooks and toggles for the EvidenceStore conformance suite. */
export interface EvidenceStoreConformanceOptions {
  /** Flip a byte of a stored artifact in place, to prove reads refuse it. */
  readonly corruptArtifact?: (store: EvidenceStore, sessionId: string, sha256: string) => Promise<void>;
  /** Prefix of every test name. @default 'EvidenceStore conformance' */
  readonly label?: string;
}

/** A fresh evidence store with the given cumulative per-session cap. */
/** Builds a fresh evidence store for one conformance case, with the cap the case needs. */
export type EvidenceStoreFactory = (options: { readonly capBytes: number }) => EvidenceStore | Promise<EvidenceStore>;

const sha256Of = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * The behaviour every EvidenceStore must have, runner-agnostic. The factory receives the
 * cap the test needs, so the cap itself is under test.
 */
export function evidenceStoreConformance(
  harness: ConformanceHarness,
  createStore: EvidenceStoreFactory,
  options: EvidenceStoreConformanceOptions = {},
): void {
  const label = options.label ?? 'EvidenceStore conformance';
  const define = (name: string, capBytes: number, body: (store: EvidenceStore) => Promise<void>) =>
    harness.test(`${label}: ${name}`, async () => {
      const store = await createStore({ capBytes });
      try {
        await body(store);
      } finally {
        await store.dispose?.();
      }
    });

  roundTripCases(define);
  limitCases(define, options);
}

/** Registers one conformance case on a fresh store. */
type DefineCase = (name: string, capBytes: number, body: (store: EvidenceStore) => Promise<void>) => void;

/** Round trips: the reference a put returns, exact bytes back, usage counted once per artifact. */
function roundTripCases(define: DefineCase): void {
  define('put returns uri, sha256 and size; get returns exactly the bytes', 1 << 20, async (store) => {
    const sessionId = randomId('session');
    const bytes = randomBytes(10_000);
    const reference = await store.put(sessionId, bytes, 'application/octet-stream');
    checkEqual(reference.sha256, sha256Of(bytes), 'sha256');
    checkEqual(reference.bytes, bytes.length, 'bytes');
    check(
      typeof reference.uri === 'string' && reference.uri.includes(reference.sha256),
      `uri must name the sha: ${reference.uri}`,
    );
    checkSameBytes(await store.get(sessionId, reference.sha256), bytes, 'artifact');
    const text = `stdout ✓ ${randomId('t')}`;
    const textReference = await store.put(sessionId, text, 'text/plain');
    checkSameBytes(
      await store.get(sessionId, textReference.sha256),
      Buffer.from(text, 'utf8'),
      'text artifact as UTF-8',
    );
  });

  define('usage counts each distinct artifact once, per session', 1 << 20, async (store) => {
    const [sessionA, sessionB] = [randomId('session'), randomId('session')];
    checkEqual(await store.usage(sessionA), 0, 'usage of a new session');
    const first = randomBytes(1_000);
    await store.put(sessionA, first);
    await store.put(sessionA, Buffer.from(first));
    await store.put(sessionA, randomBytes(500));
    await store.put(sessionB, randomBytes(42));
    checkEqual(await store.usage(sessionA), 1_500, 'usage of A');
    checkEqual(await store.usage(sessionB), 42, 'usage of B');
  });
}

/** Limits: the cumulative cap, sessions kept apart, hostile keys refused, a corrupted artifact refused (when the backend lets one be made). */
function limitCases(define: DefineCase, options: EvidenceStoreConformanceOptions): void {
  define('the cumulative cap is refused with STORE.CAP_REACHED and nothing changes', 4_096, async (store) => {
    const sessionId = randomId('session');
    await store.put(sessionId, randomBytes(3_000));
    const refused = randomBytes(1_097);
    await checkRejects(() => store.put(sessionId, refused), 'STORE.CAP_REACHED', 'an artifact past the cap');
    checkEqual(await store.usage(sessionId), 3_000, 'usage after the refusal');
    await checkRejects(() => store.get(sessionId, sha256Of(refused)), 'STORE.NOT_FOUND', 'the refused artifact');
    await store.put(sessionId, randomBytes(1_096));
    checkEqual(await store.usage(sessionId), 4_096, 'usage filled exactly to the cap');
    await checkRejects(() => store.put(sessionId, randomBytes(1)), 'STORE.CAP_REACHED', 'one byte past a full cap');
    await store.put(randomId('other-session'), randomBytes(4_000));
  });

  define('artifacts are private to their session; absent ones are STORE.NOT_FOUND', 1 << 20, async (store) => {
    const [owner, stranger] = [randomId('session'), randomId('session')];
    const reference = await store.put(owner, randomBytes(100));
    await checkRejects(
      () => store.get(stranger, reference.sha256),
      'STORE.NOT_FOUND',
      'reading another session’s artifact',
    );
    await checkRejects(() => store.get(owner, sha256Of(randomBytes(8))), 'STORE.NOT_FOUND', 'an absent artifact');
  });

  define('hostile session ids and malformed shas are refused with STORE.INVALID_KEY', 1 << 20, async (store) => {
    for (const id of HOSTILE_IDS) {
      const name = JSON.stringify(id) ?? String(id);
      await checkRejects(() => store.put(id as string, 'x'), 'STORE.INVALID_KEY', `put session ${name}`);
      await checkRejects(() => store.get(id as string, sha256Of('x')), 'STORE.INVALID_KEY', `get session ${name}`);
      await checkRejects(() => store.usage(id as string), 'STORE.INVALID_KEY', `usage ${name}`);
    }
    const sessionId = randomId('session');
    for (const sha of HOSTILE_SHAS)
      await checkRejects(
        () => store.get(sessionId, sha as string),
        'STORE.INVALID_KEY',
        `get sha ${JSON.stringify(sha)}`,
      );
  });

  if (options.corruptArtifact !== undefined) {
    const corruptArtifact = options.corruptArtifact;
    define('a corrupted artifact is refused with STORE.HASH_MISMATCH naming the sha', 1 << 20, async (store) => {
      const sessionId = randomId('session');
      const reference = await store.put(sessionId, randomBytes(256));
      await corruptArtifact(store, sessionId, reference.sha256);
      const error = await checkRejects(
        () => store.get(sessionId, reference.sha256),
        'STORE.HASH_MISMATCH',
        'a corrupted artifact',
      );
      check(error.message.includes(reference.sha256), `the message must name ${reference.sha256}: ${error.message}`);
    });
  }
}
