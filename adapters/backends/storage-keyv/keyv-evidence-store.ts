import { FoldError } from '../../../core/fold-error.ts';
import { assertSafeId, assertSha256 } from '../../../core/store/store-keys.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { EvidenceReference, EvidenceStore } from '../../../ports/evidence-store.port.ts';
import { assertBlobMatches, capReached, checkedCapBytes, contentBytes } from '../storage-shared/blob-checks.ts';
import { KeyvConnection, type KeyvStoreOptions } from './keyv-connection.ts';
import {
  decodeStoredBytes,
  evidenceKey,
  evidenceUsageKey,
  type StoredArtifact,
  type StoredEvidenceUsage,
} from './keyv-records.ts';

/** Options of a Keyv-backed evidence store. */
export interface KeyvEvidenceStoreOptions extends KeyvStoreOptions {
  /**
   * Cumulative bytes of evidence one session may hold; a put past it is refused.
   * @default 536870912 (512 MiB)
   */
  readonly capBytes?: number;
}

/**
 * EvidenceStore on any Keyv instance, one key namespace per session. Usage is a counter
 * value per session; two processes adding to the same session at the same instant may both
 * pass the cap check once (the cap is a guard against runaway growth, not an accounting ledger).
 */
export class KeyvEvidenceStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly capBytes: number;
  private readonly connection: KeyvConnection;
  /** Whether `dispose()` disconnects the Keyv; a runtime given this store then closes it with itself. */
  readonly ownsConnection: boolean;

  constructor(options: KeyvEvidenceStoreOptions) {
    this.connection = new KeyvConnection(options, 'keyv');
    this.ownsConnection = options.ownsConnection === true;
    this.name = `${this.connection.name}-evidence`;
    this.capBytes = checkedCapBytes(options.capBytes, this.name);
  }

  async put(sessionId: string, content: Uint8Array | string, mediaType?: string): Promise<EvidenceReference> {
    assertSafeId(sessionId, 'session id', this.name);
    const bytes = contentBytes(content);
    const sha256 = sha256Hex(bytes);
    const key = evidenceKey(sessionId, sha256);
    const reference = { uri: `keyv://${this.connection.name}/${key}`, sha256, bytes: bytes.length };
    if (await this.connection.has(key, 'check artifact')) return reference;
    const used = await this.usage(sessionId);
    if (used + bytes.length > this.capBytes) throw capReached(this.name, sessionId, used, bytes.length, this.capBytes);
    const artifact: StoredArtifact = {
      kind: 'evidence',
      sessionId,
      sha256,
      base64: Buffer.from(bytes).toString('base64'),
      ...(mediaType === undefined ? {} : { mediaType }),
    };
    await this.connection.write(key, artifact, 'write artifact');
    const usage: StoredEvidenceUsage = { kind: 'evidence-usage', sessionId, bytes: used + bytes.length };
    await this.connection.write(evidenceUsageKey(sessionId), usage, 'write evidence usage');
    return reference;
  }

  async get(sessionId: string, sha256: string): Promise<Uint8Array> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSha256(sha256, this.name);
    const key = evidenceKey(sessionId, sha256);
    const value = await this.connection.read(key, 'read artifact');
    if (value === undefined)
      throw new FoldError('STORE.NOT_FOUND', `${this.name} store: session ${sessionId} has no artifact ${sha256}`, {
        details: { sessionId, sha256, key },
      });
    const decoded = decodeStoredBytes(value);
    if (decoded === undefined)
      throw new FoldError(
        'STORE.HASH_MISMATCH',
        `${this.name} store: ${key} does not hold an artifact (corrupted value)`,
        { details: { sha256, key } },
      );
    assertBlobMatches(decoded.bytes, sha256, this.name, key);
    return decoded.bytes;
  }

  async usage(sessionId: string): Promise<number> {
    assertSafeId(sessionId, 'session id', this.name);
    const key = evidenceUsageKey(sessionId);
    const value = (await this.connection.read(key, 'read evidence usage')) as Partial<StoredEvidenceUsage> | undefined;
    if (value === undefined) return 0;
    if (typeof value?.bytes !== 'number' || !Number.isSafeInteger(value.bytes) || value.bytes < 0) {
      throw new FoldError('STORE.READ_FAILED', `${this.name} store: ${key} is not a usage counter (corrupted value)`, {
        details: { key },
      });
    }
    return value.bytes;
  }

  async dispose(): Promise<void> {
    await this.connection.dispose();
  }
}
