import { FoldError } from '../../../core/fold-error.ts';
import { assertSafeId, assertSha256 } from '../../../core/store/store-keys.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { EvidenceReference, EvidenceStore } from '../../../ports/evidence-store.port.ts';
import { DEFAULT_EVIDENCE_CAP_BYTES } from '../storage-shared/blob-checks.ts';

/** In-memory reference EvidenceStore with a real cumulative per-session cap. */
export class MemoryEvidenceStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'memory-evidence';
  private readonly artifacts = new Map<string, Map<string, Uint8Array>>();
  private readonly used = new Map<string, number>();

  constructor(private readonly capBytes: number = DEFAULT_EVIDENCE_CAP_BYTES) {
    if (!Number.isInteger(capBytes) || capBytes < 1)
      throw new FoldError('SETTINGS.INVALID', `evidence cap must be a positive integer of bytes, got ${capBytes}`);
  }

  async put(sessionId: string, content: Uint8Array | string): Promise<EvidenceReference> {
    assertSafeId(sessionId, 'session id', this.name);
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : new Uint8Array(content);
    const sha256 = sha256Hex(bytes);
    const session = this.artifacts.get(sessionId) ?? new Map<string, Uint8Array>();
    if (!session.has(sha256)) {
      const after = (this.used.get(sessionId) ?? 0) + bytes.length;
      if (after > this.capBytes) {
        throw new FoldError(
          'STORE.CAP_REACHED',
          `${this.name}: session ${sessionId} would hold ${after} bytes of evidence, over its cap of ${this.capBytes}`,
          { details: { sessionId, capBytes: this.capBytes } },
        );
      }
      session.set(sha256, bytes);
      this.artifacts.set(sessionId, session);
      this.used.set(sessionId, after);
    }
    return { uri: `memory://${sessionId}/${sha256}`, sha256, bytes: bytes.length };
  }

  async get(sessionId: string, sha256: string): Promise<Uint8Array> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSha256(sha256, this.name);
    const bytes = this.artifacts.get(sessionId)?.get(sha256);
    if (bytes === undefined)
      throw new FoldError('STORE.NOT_FOUND', `${this.name}: session ${sessionId} has no artifact ${sha256}`, {
        details: { sessionId, sha256 },
      });
    if (sha256Hex(bytes) !== sha256)
      throw new FoldError('STORE.HASH_MISMATCH', `${this.name}: artifact ${sha256} is corrupted`, {
        details: { sha256 },
      });
    return bytes.slice();
  }

  async usage(sessionId: string): Promise<number> {
    assertSafeId(sessionId, 'session id', this.name);
    return this.used.get(sessionId) ?? 0;
  }
}
