/**
 * Text that `search` has already verified, kept so a repeated search does not read, hash and
 * decode the whole folded history again (docs/behaviour.md B4, I2).
 *
 * A blob is addressed by its SHA-256, so the text of a digest never changes: once its bytes
 * were read and checked against the digest in this process, that text *is* the verified
 * content, and a search may answer from it. Only `search` reads here. `peek`, `expand` and
 * every full-source read go to the store and verify each time, so a blob damaged or replaced
 * on disk after it was cached is still refused, by name, the moment anyone reads it for its
 * bytes. Entries enter only after a verified read; bytes a commit wrote are not trusted
 * without one, so a blob damaged before its first search is refused by that search.
 */

/** What a search scans of one verified blob. */
export interface VerifiedText {
  readonly text: string;
  /** Length of the exact bytes (UTF-8) the text was decoded from. */
  readonly byteLength: number;
  /** The verified bytes themselves, only where the text does not re-encode to them (not valid UTF-8). */
  readonly bytes?: Uint8Array;
}

const lenientUtf8 = new TextDecoder('utf-8');

/**
 * The text of `sha256` for a search: from the cache, or from `readVerified` (a read of the
 * store that checks the digest, docs/behaviour.md I2), which is then remembered.
 */
export async function searchText(
  cache: VerifiedTextCache,
  sha256: string,
  readVerified: () => Promise<Uint8Array>,
): Promise<VerifiedText> {
  const held = cache.get(sha256);
  if (held !== undefined) return held;
  const bytes = await readVerified();
  return cache.remember(sha256, bytes) ?? { text: lenientUtf8.decode(bytes), byteLength: bytes.length, bytes };
}

/**
 * Code units the cache holds by default: 32 Mi (at most 64 MiB of string). The lab's longest
 * folded history (the full preset's fold-eager arm) is well under it, so every search after
 * the first scans memory; a longer history keeps its most recently searched part.
 */
export const SEARCH_TEXT_CACHE_UNITS = 32 * 1024 * 1024;

// `fatal` and `ignoreBOM`: only text that re-encodes to exactly the verified bytes is kept,
// so a hit's byte offsets and excerpts can be computed from the text alone.
const exactUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A least-recently-used map from digest to verified text, bounded by the code units it holds. */
export class VerifiedTextCache {
  private readonly texts = new Map<string, VerifiedText>();
  private heldUnits = 0;

  constructor(private readonly maxUnits: number = SEARCH_TEXT_CACHE_UNITS) {}

  /** The verified text of `sha256`, if held (and now the most recently used). */
  get(sha256: string): VerifiedText | undefined {
    const held = this.texts.get(sha256);
    if (held === undefined) return undefined;
    this.texts.delete(sha256);
    this.texts.set(sha256, held);
    return held;
  }

  /**
   * Remember bytes that were just verified against `sha256`, and return their text; undefined
   * for bytes that are not exactly UTF-8 (the caller scans those as it can, and keeps nothing).
   * A text larger than the whole cache is returned without being kept.
   */
  remember(sha256: string, verifiedBytes: Uint8Array): VerifiedText | undefined {
    let text: string;
    try {
      text = exactUtf8.decode(verifiedBytes);
    } catch {
      return undefined;
    }
    const entry = { text, byteLength: verifiedBytes.length };
    if (text.length > this.maxUnits) return entry;
    const previous = this.texts.get(sha256);
    if (previous !== undefined) {
      this.texts.delete(sha256);
      this.heldUnits -= previous.text.length;
    }
    this.texts.set(sha256, entry);
    this.heldUnits += text.length;
    for (const [oldest, held] of this.texts) {
      if (this.heldUnits <= this.maxUnits) break;
      this.texts.delete(oldest);
      this.heldUnits -= held.text.length;
    }
    return entry;
  }

  /** Code units held now. */
  get units(): number {
    return this.heldUnits;
  }

  /** Digests held now. */
  get size(): number {
    return this.texts.size;
  }
}

// One cache per store object: a process serving many sessions from one store holds one bound,
// and a test's store never sees another's texts.
const cachesByStore = new WeakMap<object, VerifiedTextCache>();

/** The verified-text cache of searches that read from `store`. */
export function searchTextsOf(store: object): VerifiedTextCache {
  let cache = cachesByStore.get(store);
  if (cache === undefined) {
    cache = new VerifiedTextCache();
    cachesByStore.set(store, cache);
  }
  return cache;
}
