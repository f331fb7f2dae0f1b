import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { FoldError } from '../../../core/fold-error.ts';
import { assertSafeId, assertSha256 } from '../../../core/store/store-keys.ts';

/**
 * Where everything lives under a store root. Every path is built from a validated id and
 * checked to resolve inside the root, so no key can name a file elsewhere:
 *
 *   <root>/blobs/sha256/ab/<sha>                 exact source bytes, content-addressed
 *   <root>/sessions/<session>/folds/<fold>.json  immutable fold records (envelopes)
 *   <root>/sessions/<session>/state.json         engine state, replaced atomically
 *   <root>/evidence/<session>/<sha>              evidence artifacts, mode 0444
 */
export class FsStoreLayout {
  readonly root: string;
  /**
   * Directories this layout has created and checked (or is checking: concurrent writes into
   * one directory share the check). A commit writes dozens of files into a few directories,
   * and checking each one again per file cost five thread-pool round trips a file (two
   * realpaths before and after a mkdir). A directory removed since (a person deleting a
   * finished session) is noticed by the write that fails in it (`writeInside`).
   */
  private readonly prepared = new Map<string, Promise<void>>();

  constructor(
    root: string,
    private readonly storeName: string,
  ) {
    if (typeof root !== 'string' || root.length === 0 || root.includes('\0')) {
      throw new FoldError('SETTINGS.INVALID', `${storeName} store: root must be a non-empty directory path`, {
        details: { root: String(root) },
      });
    }
    this.root = resolve(root);
  }

  get blobsDirectory(): string {
    return join(this.root, 'blobs', 'sha256');
  }

  get sessionsDirectory(): string {
    return join(this.root, 'sessions');
  }

  get evidenceRoot(): string {
    return join(this.root, 'evidence');
  }

  blobPath(sha256: unknown): string {
    assertSha256(sha256, this.storeName);
    return this.inside(join(this.blobsDirectory, sha256.slice(0, 2), sha256));
  }

  sessionDirectory(sessionId: unknown): string {
    assertSafeId(sessionId, 'session id', this.storeName);
    return this.inside(join(this.sessionsDirectory, sessionId));
  }

  foldsDirectory(sessionId: unknown): string {
    return join(this.sessionDirectory(sessionId), 'folds');
  }

  foldPath(sessionId: unknown, foldId: unknown): string {
    const directory = this.foldsDirectory(sessionId);
    assertSafeId(foldId, 'fold id', this.storeName);
    return this.inside(join(directory, `${foldId}.json`));
  }

  statePath(sessionId: unknown): string {
    return join(this.sessionDirectory(sessionId), 'state.json');
  }

  evidenceDirectory(sessionId: unknown): string {
    assertSafeId(sessionId, 'session id', this.storeName);
    return this.inside(join(this.evidenceRoot, sessionId));
  }

  evidencePath(sessionId: unknown, sha256: unknown): string {
    const directory = this.evidenceDirectory(sessionId);
    assertSha256(sha256, this.storeName);
    return this.inside(join(directory, sha256));
  }

  /**
   * Create `directory` for a write, refusing when, with symlinks resolved, it (or the nearest
   * part that already exists) is not inside the resolved root: a link planted inside the
   * store cannot redirect writes, or even new directories, elsewhere. The root itself may
   * be a symlink.
   */
  async prepareDirectory(directory: string): Promise<void> {
    // Synchronous, like the store's other small-file calls (atomic-files.ts says why): the
    // first commit of a store prepares a few dozen blob directories.
    this.assertResolvesInside(directory);
    mkdirSync(directory, { recursive: true, mode: 0o755 });
    this.assertResolvesInside(directory);
  }

  /**
   * Run `write` (which creates a file in `directory`) with the directory prepared: checked
   * and created once per layout, not once per file. A write that finds the directory gone
   * (ENOENT) prepares it again and runs once more.
   */
  async writeInside<T>(directory: string, write: () => Promise<T>): Promise<T> {
    const known = this.prepared.has(directory);
    await this.prepareOnce(directory);
    try {
      return await write();
    } catch (error) {
      if (!known || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.prepared.delete(directory);
    }
    await this.prepareOnce(directory);
    return write();
  }

  private prepareOnce(directory: string): Promise<void> {
    let preparing = this.prepared.get(directory);
    if (preparing === undefined) {
      preparing = this.prepareDirectory(directory);
      this.prepared.set(directory, preparing);
      // A failed check is not remembered: the next write checks again (and fails loudly again).
      preparing.catch(() => this.prepared.delete(directory));
    }
    return preparing;
  }

  private assertResolvesInside(directory: string): void {
    const realRoot = resolveExistingPart(this.root);
    const realDirectory = resolveExistingPart(directory);
    const fromRoot = relative(realRoot, realDirectory);
    if (fromRoot === '' || fromRoot.startsWith('..') || isAbsolute(fromRoot)) {
      throw new FoldError(
        'STORE.INVALID_KEY',
        `${this.storeName} store: ${this.keyOf(directory)} resolves to ${realDirectory}, outside the store root ${realRoot}; refusing to write there`,
        {
          details: { key: this.keyOf(directory), resolved: realDirectory },
        },
      );
    }
  }

  /** A path relative to the root, used as the key in error messages and verify reports. */
  keyOf(path: string): string {
    return relative(this.root, path).split(sep).join('/');
  }

  // Belt and braces: ids are already validated, but a path is only used if it stays inside.
  private inside(path: string): string {
    const fromRoot = relative(this.root, path);
    if (fromRoot === '' || fromRoot.startsWith('..') || isAbsolute(fromRoot)) {
      throw new FoldError(
        'STORE.INVALID_KEY',
        `${this.storeName} store: ${path} is outside the store root ${this.root}`,
        { details: { path } },
      );
    }
    return path;
  }
}

/** The path with symlinks resolved in the part that exists; the missing tail is kept as written. */
function resolveExistingPart(path: string): string {
  let existing = path;
  for (;;) {
    try {
      return join(realpathSync(existing), relative(existing, path));
    } catch (error) {
      const parent = dirname(existing);
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || parent === existing) throw error;
      existing = parent;
    }
  }
}
