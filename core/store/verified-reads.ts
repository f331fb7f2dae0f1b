/** Room core/store/: the engine's side of the FoldStore, every read verified, every write checked. */

import type { FoldStore } from '../../ports/fold-store.port.ts';
import { FoldError } from '../fold-error.ts';
import { sha256Hex } from '../util/hashing.ts';

const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * Read a blob and check it against its SHA-256 before anyone sees it (docs/behaviour.md I2). A store that
 * declares `verifiesReads` has already re-hashed, so the bytes are not hashed twice.
 */
export async function verifiedBlob(store: FoldStore, sha256: string): Promise<Uint8Array> {
  let bytes: Uint8Array;
  try {
    bytes = await store.getBlob(sha256);
  } catch (error) {
    if (FoldError.isInstance(error)) throw error;
    throw new FoldError('STORE.READ_FAILED', `${store.name} store failed to read blob ${sha256}`, {
      cause: error,
      details: { sha256 },
    });
  }
  if (store.capabilities?.verifiesReads !== true) {
    const actual = sha256Hex(bytes);
    if (actual !== sha256) {
      throw new FoldError(
        'STORE.HASH_MISMATCH',
        `${store.name} store returned bytes for ${sha256} that hash to ${actual}`,
        { details: { sha256, actual } },
      );
    }
  }
  return bytes;
}

export async function verifiedBlobText(store: FoldStore, sha256: string): Promise<string> {
  const bytes = await verifiedBlob(store, sha256);
  try {
    return decoder.decode(bytes);
  } catch (error) {
    throw new FoldError('STORE.HASH_MISMATCH', `${store.name} store blob ${sha256} is not valid UTF-8 text`, {
      cause: error,
      details: { sha256 },
    });
  }
}
