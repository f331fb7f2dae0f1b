import { readFileSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { FoldError } from '../../../core/fold-error.ts';
import { isRecordDamage } from '../../../core/store/restore-folds.ts';
import { assertSafeId } from '../../../core/store/store-keys.ts';
import { sha256Hex, stableStringify } from '../../../core/util/hashing.ts';
import type { EngineState, FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore, ListAllFoldsOptions, StoredBlobInfo } from '../../../ports/fold-store.port.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';
import { assertBlobMatches, contentBytes } from '../storage-shared/blob-checks.ts';
import { damagedFoldRecord } from '../storage-shared/damaged-records.ts';
import { parseEnvelopeText, unwrapFold, unwrapState, wrapFold, wrapState } from '../storage-shared/stored-records.ts';
import { createFileExclusively, isTempName, PendingSyncs, replaceFileAtomically } from './atomic-files.ts';
import { retryingOnShortage } from './descriptor-shortage.ts';
import { deleteFsBlob, fsBlobInfo, listFsBlobs, listFsSessions, touchBlobFile } from './fs-blob-retention.ts';
import { isAbsent, storeFailure } from './fs-errors.ts';
import { appendFsRequestLog, readFsRequestLog } from './fs-request-log.ts';
import { FsStateWriter } from './fs-state-writer.ts';
import { FsStoreLayout } from './fs-store-layout.ts';

/** Options of the filesystem fold store. */
export interface FsFoldStoreOptions {
  /** Directory that holds the store; created on first write. Nothing is written outside it. */
  readonly root: string;
}

// Stored files are immutable or replaced whole, so nobody needs write permission on them.
const BLOB_MODE = 0o444;
const RECORD_MODE = 0o444;
const STATE_MODE = 0o644;

/**
 * FoldStore on a local directory. Blobs are content-addressed files, re-hashed on every
 * read; fold records are created once (a different record under an existing id is refused);
 * engine state is replaced atomically. Safe for several processes on one machine.
 */
export class FsFoldStore implements FoldStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'fs';
  readonly capabilities = { verifiesReads: true, shared: false, retention: true, requestLog: true } as const;
  readonly layout: FsStoreLayout;
  /**
   * New blob files, synced (bytes, then directory entries, each in one parallel pass) before a
   * record names them: a commit's blobs cost one flush together, not one each.
   */
  private readonly blobSyncs = new PendingSyncs();
  /** New record files, synced the same way before a state lists them. */
  private readonly recordSyncs = new PendingSyncs();
  private readonly stateWriter: FsStateWriter;

  constructor(options: FsFoldStoreOptions) {
    this.layout = new FsStoreLayout(options?.root, this.name);
    // One writer per root in this process: a second store on the same directory (a reopened
    // session) reads a state only after the first one's background write has landed.
    this.stateWriter = FsStateWriter.forRoot(this.layout.root);
  }

  async putBlob(content: string | Uint8Array): Promise<string> {
    const bytes = contentBytes(content);
    const sha256 = sha256Hex(bytes);
    const path = this.layout.blobPath(sha256);
    // Deduplicate before paying for a temp file and two fsyncs, but never keep a damaged
    // copy: the caller has just handed us the true bytes, so a corrupt file is replaced.
    let existing = await this.readExisting(path);
    // A re-put refreshes the mtime, which is what tells a running gc the blob is wanted again.
    if (existing !== undefined && sha256Hex(existing) === sha256) {
      if (await touchBlobFile(this.layout, this.name, path)) {
        // Another writer's copy may not be synced yet; the record about to name it waits for it.
        this.blobSyncs.add(path);
        return sha256;
      }
      existing = undefined;
    }
    try {
      if (existing !== undefined) {
        await replaceFileAtomically(path, bytes, BLOB_MODE);
        return sha256;
      }
      // A blob's name is its hash, so an existing file is the same bytes (or caught on read).
      await this.layout.writeInside(dirname(path), () => createFileExclusively(path, bytes, BLOB_MODE, this.blobSyncs));
    } catch (error) {
      throw storeFailure('STORE.WRITE_FAILED', this.name, 'write blob', this.layout.keyOf(path), error);
    }
    return sha256;
  }

  /** Sync every blob put so far (bytes, then directory entries), ahead of the record that will name them. */
  async flushBlobs(): Promise<void> {
    try {
      await this.blobSyncs.flush();
    } catch (error) {
      throw storeFailure(
        'STORE.WRITE_FAILED',
        this.name,
        'sync blobs in',
        this.layout.keyOf(this.layout.blobsDirectory),
        error,
      );
    }
  }

  async getBlob(sha256: string): Promise<Uint8Array> {
    const path = this.layout.blobPath(sha256);
    const key = this.layout.keyOf(path);
    let bytes: Uint8Array;
    try {
      // Read synchronously, like every small-file call of this store (atomic-files.ts says why).
      bytes = await retryingOnShortage(() => readFileSync(path));
    } catch (error) {
      if (isAbsent(error))
        throw new FoldError('STORE.NOT_FOUND', `${this.name} store has no blob ${sha256}`, {
          details: { sha256, key },
        });
      throw storeFailure('STORE.READ_FAILED', this.name, 'read blob', key, error);
    }
    assertBlobMatches(bytes, sha256, this.name, key);
    return bytes;
  }

  async hasBlob(sha256: string): Promise<boolean> {
    const path = this.layout.blobPath(sha256);
    try {
      return statSync(path).isFile();
    } catch (error) {
      if (isAbsent(error)) return false;
      throw storeFailure('STORE.READ_FAILED', this.name, 'check blob', this.layout.keyOf(path), error);
    }
  }

  async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    if (typeof record !== 'object' || record === null)
      throw new FoldError('STORE.INVALID_KEY', `${this.name} store: a fold record must be an object`);
    const path = this.layout.foldPath(sessionId, record.id);
    const key = this.layout.keyOf(path);
    const envelope = wrapFold(sessionId, record);
    let outcome: 'created' | 'exists';
    try {
      // A record is written only once every blob put before it is durable (it names them).
      await this.blobSyncs.flush();
      outcome = await this.layout.writeInside(dirname(path), () =>
        createFileExclusively(path, Buffer.from(JSON.stringify(envelope), 'utf8'), RECORD_MODE, this.recordSyncs),
      );
    } catch (error) {
      throw storeFailure('STORE.WRITE_FAILED', this.name, 'write fold record', key, error);
    }
    if (outcome === 'exists') {
      const existing = await this.getFold(sessionId, record.id);
      if (existing === undefined || stableStringify(existing) !== stableStringify(record)) {
        throw new FoldError(
          'STORE.WRITE_FAILED',
          `${this.name} store: fold ${record.id} of session ${sessionId} already exists with different content; fold records are immutable`,
          {
            details: { sessionId, foldId: record.id, key },
          },
        );
      }
    }
  }

  async getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined> {
    const path = this.layout.foldPath(sessionId, foldId);
    const key = this.layout.keyOf(path);
    const text = await this.readTextOrAbsent(path, 'read fold record');
    if (text === undefined) return undefined;
    return unwrapFold(parseEnvelopeText(text, { storeName: this.name, key }), sessionId, foldId, {
      storeName: this.name,
      key,
    });
  }

  async listFolds(sessionId: string): Promise<readonly FoldRecord[]> {
    const directory = this.layout.foldsDirectory(sessionId);
    let names: string[];
    try {
      names = await retryingOnShortage(() => readdir(directory));
    } catch (error) {
      if (isAbsent(error)) return [];
      throw storeFailure('STORE.READ_FAILED', this.name, 'list fold records in', this.layout.keyOf(directory), error);
    }
    const records: FoldRecord[] = [];
    for (const name of names.sort()) {
      if (isTempName(name) || !name.endsWith('.json')) continue;
      const foldId = name.slice(0, -'.json'.length);
      assertSafeId(foldId, 'fold id', this.name);
      const record = await this.getFold(sessionId, foldId);
      // Listed a moment ago; vanishing now means someone deleted it under us.
      if (record === undefined)
        throw new FoldError(
          'STORE.READ_FAILED',
          `${this.name} store: fold record ${foldId} of session ${sessionId} disappeared while listing`,
          { details: { sessionId, foldId } },
        );
      records.push(record);
    }
    return records;
  }

  /**
   * Every fold record of every session, one session directory after another (gc walks with
   * it). A record that cannot be read goes to `onDamaged` with the text it holds, and the
   * walk goes on: one damaged file must not stop gc for every session of the store.
   */
  async *listAllFolds(
    options: ListAllFoldsOptions = {},
  ): AsyncIterable<{ readonly sessionId: string; readonly record: FoldRecord }> {
    for (const sessionId of await this.listSessions()) {
      const directory = this.layout.foldsDirectory(sessionId);
      let names: string[];
      try {
        names = await readdir(directory);
      } catch (error) {
        if (isAbsent(error)) continue;
        throw storeFailure('STORE.READ_FAILED', this.name, 'list fold records in', this.layout.keyOf(directory), error);
      }
      for (const name of names.sort()) {
        if (isTempName(name) || !name.endsWith('.json')) continue;
        const foldId = name.slice(0, -'.json'.length);
        let record: FoldRecord | undefined;
        try {
          record = await this.getFold(sessionId, foldId);
        } catch (error) {
          if (options.onDamaged === undefined || !isRecordDamage(error)) throw error;
          const path = this.layout.foldPath(sessionId, foldId);
          const text = (await this.readTextOrAbsent(path, 'read fold record')) ?? '';
          options.onDamaged(damagedFoldRecord({ sessionId, foldId, key: this.layout.keyOf(path) }, error, text));
          continue;
        }
        // Gone since the directory was read (set aside by a repair): nothing left to walk.
        if (record !== undefined) yield { sessionId, record };
      }
    }
  }

  /**
   * A commit's state is written before this returns; other changes are written off the request path
   * (FsStateWriter).
   */
  async saveState(sessionId: string, state: EngineState): Promise<void> {
    this.layout.statePath(sessionId);
    await this.stateWriter.save(sessionId, state, (id, next) => this.writeState(id, next));
  }

  private async writeState(sessionId: string, state: EngineState): Promise<void> {
    const path = this.layout.statePath(sessionId);
    try {
      // The state names fold records and blobs: they are made durable first, in one pass each,
      // while the new state's temp file is written and synced; it is renamed into place after.
      const bytes = Buffer.from(JSON.stringify(wrapState(sessionId, state)), 'utf8');
      const namedDurable = async () => {
        await this.blobSyncs.flush();
        await this.recordSyncs.flush();
      };
      await this.layout.writeInside(dirname(path), () => replaceFileAtomically(path, bytes, STATE_MODE, namedDurable));
    } catch (error) {
      throw storeFailure('STORE.WRITE_FAILED', this.name, 'write engine state', this.layout.keyOf(path), error);
    }
  }

  async loadState(sessionId: string): Promise<EngineState | undefined> {
    await this.stateWriter.settle(sessionId);
    const path = this.layout.statePath(sessionId);
    const key = this.layout.keyOf(path);
    const text = await this.readTextOrAbsent(path, 'read engine state');
    if (text === undefined) return undefined;
    return unwrapState(parseEnvelopeText(text, { storeName: this.name, key }), sessionId, {
      storeName: this.name,
      key,
    });
  }

  async listSessions(): Promise<readonly string[]> {
    return listFsSessions(this.layout, this.name);
  }

  listBlobs(): AsyncIterable<StoredBlobInfo> {
    return listFsBlobs(this.layout, this.name);
  }

  async blobInfo(sha256: string): Promise<StoredBlobInfo | undefined> {
    return fsBlobInfo(this.layout, this.name, sha256);
  }

  async deleteBlob(
    sha256: string,
    options: { readonly touchedBefore: number },
  ): Promise<'deleted' | 'kept' | 'absent'> {
    return deleteFsBlob(this.layout, this.name, sha256, options.touchedBefore);
  }

  async appendRequestLog(sessionId: string, rows: readonly RequestLogRow[]): Promise<void> {
    await appendFsRequestLog(this.layout, this.name, sessionId, rows);
  }

  async readRequestLog(sessionId: string): Promise<readonly RequestLogRow[]> {
    return readFsRequestLog(this.layout, this.name, sessionId);
  }

  /** Finish the writes still in flight (states off the request path, directory syncs). */
  async dispose(): Promise<void> {
    await this.stateWriter.settleAll();
    await this.blobSyncs.flush();
    await this.recordSyncs.flush();
  }

  private async readExisting(path: string): Promise<Uint8Array | undefined> {
    try {
      return await retryingOnShortage(() => readFileSync(path));
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw storeFailure('STORE.READ_FAILED', this.name, 'check blob', this.layout.keyOf(path), error);
    }
  }

  // Absence is legitimate for records and state (a new session); any other failure is loud.
  private async readTextOrAbsent(path: string, action: string): Promise<string | undefined> {
    try {
      return await retryingOnShortage(() => readFileSync(path, 'utf8'));
    } catch (error) {
      if (isAbsent(error)) return undefined;
      throw storeFailure('STORE.READ_FAILED', this.name, action, this.layout.keyOf(path), error);
    }
  }
}
