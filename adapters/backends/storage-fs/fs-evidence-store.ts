import { readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FoldError } from '../../../core/fold-error.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { EvidenceReference, EvidenceStore } from '../../../ports/evidence-store.port.ts';
import { assertBlobMatches, capReached, checkedCapBytes, contentBytes } from '../storage-shared/blob-checks.ts';
import { createFileExclusively, isTempName } from './atomic-files.ts';
import { retryingOnShortage } from './descriptor-shortage.ts';
import { isAbsent, storeFailure } from './fs-errors.ts';
import { FsStoreLayout } from './fs-store-layout.ts';

/** Options of the filesystem evidence store. */
export interface FsEvidenceStoreOptions {
  /** Store root; artifacts go to `<root>/evidence/<session>/<sha>`. */
  readonly root: string;
  /**
   * Cumulative bytes of evidence one session may hold; a put past it is refused.
   * @default 536870912 (512 MiB)
   */
  readonly capBytes?: number;
}

const ARTIFACT_MODE = 0o444;

/**
 * EvidenceStore on the filesystem: one read-only (0444) file per artifact in a directory per
 * session, named by its SHA-256 and re-hashed on read. A session's usage is the sum of its
 * artifact files, so the cap holds across restarts and processes.
 */
export class FsEvidenceStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'fs-evidence';
  /** The cap is reserved with no await between check and reservation (see `put`). */
  readonly concurrentPuts = true;
  readonly capBytes: number;
  private readonly layout: FsStoreLayout;
  /**
   * Bytes each session held on disk when this process first measured it, plus what this
   * process has written since: the cap check no longer lists and sizes every artifact on each
   * put (a stat per artifact per request). Another process's writes to the same session are
   * counted from this process's next measurement (`usage()` always measures the disk).
   */
  private readonly measured = new Map<string, number>();
  /** The first measurement of each session, shared by puts that start together. */
  private readonly measuring = new Map<string, Promise<void>>();
  /** Puts under way, by path: the same artifact put again meanwhile waits for the first. */
  private readonly writing = new Map<string, Promise<EvidenceReference>>();

  constructor(options: FsEvidenceStoreOptions) {
    this.layout = new FsStoreLayout(options?.root, this.name);
    this.capBytes = checkedCapBytes(options.capBytes, this.name);
  }

  /**
   * Store an artifact. Storing the same bytes again is free; a new artifact that would take
   * the session past its cap is refused with `STORE.CAP_REACHED` and nothing is written.
   * The media type is not persisted (callers keep it beside the reference).
   */
  async put(sessionId: string, content: Uint8Array | string, _mediaType?: string): Promise<EvidenceReference> {
    const bytes = contentBytes(content);
    const sha256 = sha256Hex(bytes);
    const path = this.layout.evidencePath(sessionId, sha256);
    const reference = { uri: pathToFileURL(path).href, sha256, bytes: bytes.length };
    const underWay = this.writing.get(path);
    if (underWay !== undefined) return underWay;
    const written = this.write(sessionId, path, bytes, reference).finally(() => this.writing.delete(path));
    this.writing.set(path, written);
    return written;
  }

  private async write(
    sessionId: string,
    path: string,
    bytes: Uint8Array,
    reference: EvidenceReference,
  ): Promise<EvidenceReference> {
    if (await this.exists(path)) return reference;
    await this.measureOnce(sessionId);
    // Check and reserve with no await in between: puts under way together see each other's bytes.
    const used = this.measured.get(sessionId)!;
    if (used + bytes.length > this.capBytes) throw capReached(this.name, sessionId, used, bytes.length, this.capBytes);
    this.measured.set(sessionId, used + bytes.length);
    let outcome: 'created' | 'exists' | 'failed' = 'failed';
    try {
      outcome = await this.layout.writeInside(this.layout.evidenceDirectory(sessionId), () =>
        createFileExclusively(path, bytes, ARTIFACT_MODE),
      );
    } catch (error) {
      throw storeFailure('STORE.WRITE_FAILED', this.name, 'write artifact', this.layout.keyOf(path), error);
    } finally {
      // Not written by this put (already there, or failed): the reservation is given back.
      if (outcome !== 'created') this.measured.set(sessionId, this.measured.get(sessionId)! - bytes.length);
    }
    return reference;
  }

  async get(sessionId: string, sha256: string): Promise<Uint8Array> {
    const path = this.layout.evidencePath(sessionId, sha256);
    const key = this.layout.keyOf(path);
    let bytes: Uint8Array;
    try {
      // Synchronous like the store's other small-file calls (atomic-files.ts says why).
      bytes = await retryingOnShortage(() => readFileSync(path));
    } catch (error) {
      if (isAbsent(error))
        throw new FoldError('STORE.NOT_FOUND', `${this.name} store: session ${sessionId} has no artifact ${sha256}`, {
          details: { sessionId, sha256, key },
        });
      throw storeFailure('STORE.READ_FAILED', this.name, 'read artifact', key, error);
    }
    assertBlobMatches(bytes, sha256, this.name, key);
    return bytes;
  }

  async usage(sessionId: string): Promise<number> {
    const directory = this.layout.evidenceDirectory(sessionId);
    let names: string[];
    try {
      names = await retryingOnShortage(() => readdir(directory));
    } catch (error) {
      if (isAbsent(error)) return 0;
      throw storeFailure('STORE.READ_FAILED', this.name, 'list artifacts in', this.layout.keyOf(directory), error);
    }
    let total = 0;
    for (const name of names) {
      if (isTempName(name)) continue;
      try {
        total += (await stat(join(directory, name))).size;
      } catch (error) {
        throw storeFailure(
          'STORE.READ_FAILED',
          this.name,
          'measure artifact',
          `${this.layout.keyOf(directory)}/${name}`,
          error,
        );
      }
    }
    return total;
  }

  async dispose(): Promise<void> {}

  private measureOnce(sessionId: string): Promise<void> {
    if (this.measured.has(sessionId)) return Promise.resolve();
    let measuring = this.measuring.get(sessionId);
    if (measuring === undefined) {
      measuring = this.usage(sessionId).then(
        (used) => {
          this.measured.set(sessionId, used);
          this.measuring.delete(sessionId);
        },
        (error: unknown) => {
          this.measuring.delete(sessionId);
          throw error;
        },
      );
      this.measuring.set(sessionId, measuring);
    }
    return measuring;
  }

  private async exists(path: string): Promise<boolean> {
    try {
      return statSync(path).isFile();
    } catch (error) {
      if (isAbsent(error)) return false;
      throw storeFailure('STORE.READ_FAILED', this.name, 'check artifact', this.layout.keyOf(path), error);
    }
  }
}
