import type Keyv from 'keyv';
import { FoldError } from '../../../core/fold-error.ts';

/**
 * A row the backend holds under a key but that cannot be decoded as a Keyv value: a torn
 * write, an edited database, a value of another program. Keyv's own decoding throws on
 * such a row, and a walk of the namespace (listing, gc, verify) would stop at it for every
 * session of the store. Decoded as this marker instead, the damage stays with its key: a
 * read of that key is refused by name, a walk goes on past it, and `repair` can set the
 * exact text aside.
 */
export class UnreadableRow {
  constructor(
    /** The text the backend holds, as it holds it. */
    readonly raw: string,
    /** Why it cannot be decoded. */
    readonly reason: string,
  ) {}
}

export function isUnreadableRow(value: unknown): value is UnreadableRow {
  return value instanceof UnreadableRow;
}

type Decode = (data: string) => unknown;

const tolerantKeyvs = new WeakSet<Keyv>();

/**
 * Make a Keyv decode every row it cannot read as an `UnreadableRow` rather than throw. The
 * Keyv's own decoder (a custom one included) still decodes every row it can; a Keyv shared
 * by two stores is wrapped once.
 */
export function decodeDamagedRowsAsMarkers(keyv: Keyv): void {
  if (tolerantKeyvs.has(keyv)) return;
  const decode = keyv.deserialize as Decode | undefined;
  if (typeof decode !== 'function') return;
  tolerantKeyvs.add(keyv);
  keyv.deserialize = (async (data: string) => {
    let decoded: unknown;
    try {
      decoded = await decode(data);
    } catch (error) {
      return { value: new UnreadableRow(data, `not valid JSON (${(error as Error).message})`) };
    }
    if (typeof decoded !== 'object' || decoded === null || !('value' in decoded))
      return { value: new UnreadableRow(data, 'not a Keyv value (no value field)') };
    return decoded;
  }) as typeof keyv.deserialize;
}

/** The refusal of a read that met an unreadable row: damage (like a torn file), named by key. */
export function unreadableRowError(storeName: string, key: string, row: UnreadableRow, what: string): FoldError {
  return new FoldError(
    'STORE.HASH_MISMATCH',
    `${storeName} store: ${key} is ${row.reason.startsWith('not valid JSON') ? 'not valid JSON' : 'not a Keyv value'} (a torn or corrupted ${what} row)`,
    { details: { key, reason: row.reason } },
  );
}

/** Session and the rest of a session-scoped key (`session/<id>/…`), however the adapter prefixes it. */
export function sessionKeyParts(key: string): { readonly sessionId: string; readonly rest: string } | undefined {
  const match = /(?:^|:)session\/([^/]+)\/(.+)$/.exec(key);
  return match === null ? undefined : { sessionId: match[1]!, rest: match[2]! };
}

/** The session and fold id a fold-record key names, or `undefined` for any other key. */
export function foldKeyParts(key: string): { readonly sessionId: string; readonly foldId: string } | undefined {
  const parts = sessionKeyParts(key);
  if (parts === undefined || !parts.rest.startsWith('fold/')) return undefined;
  return { sessionId: parts.sessionId, foldId: parts.rest.slice('fold/'.length) };
}

/** The text a value was stored as: an unreadable row's own text, else its JSON. */
export function storedText(value: unknown): string {
  if (isUnreadableRow(value)) return value.raw;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}
