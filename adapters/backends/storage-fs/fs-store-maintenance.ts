import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { MendedItem, RequestLogMend, StoredItem, StoreMaintenance } from '../storage-shared/store-maintenance.ts';
import { isTempName, replaceFileAtomically } from './atomic-files.ts';
import { isAbsent } from './fs-errors.ts';
import type { FsFoldStore } from './fs-fold-store.ts';
import { quarantineFsCopy, quarantineFsFile } from './fs-quarantine.ts';
import { parseRequestLogText, readFsRequestLogText, requestLogPath } from './fs-request-log.ts';

/** `pi-fold repair`'s access to a filesystem store (see StoreMaintenance). */
export class FsStoreMaintenance implements StoreMaintenance {
  constructor(private readonly store: FsFoldStore) {}

  async foldIdsOf(sessionId: string): Promise<string[]> {
    const names = await readdir(this.store.layout.foldsDirectory(sessionId)).catch((error: unknown) =>
      isAbsent(error) ? [] : Promise.reject(error),
    );
    return names
      .filter((name) => name.endsWith('.json') && !isTempName(name))
      .map((name) => name.slice(0, -'.json'.length))
      .sort();
  }

  async setAside(
    item: StoredItem,
    _reason: string,
    options: { readonly keepOriginal?: boolean } = {},
  ): Promise<string | undefined> {
    const { layout, name } = this.store;
    const path =
      item.kind === 'blob'
        ? layout.blobPath(item.sha256)
        : item.kind === 'state'
          ? layout.statePath(item.sessionId)
          : layout.foldPath(item.sessionId, item.foldId);
    try {
      return options.keepOriginal === true
        ? await quarantineFsCopy(layout, name, path)
        : await quarantineFsFile(layout, name, path);
    } catch (error) {
      if (isAbsent((error as { cause?: unknown }).cause)) return undefined;
      throw error;
    }
  }

  async intactCopyOf(sha256: string): Promise<Uint8Array | undefined> {
    const { layout } = this.store;
    const sessions = await readdir(layout.evidenceRoot).catch(() => [] as string[]);
    for (const sessionId of sessions.sort()) {
      const bytes = await readFile(join(layout.evidenceRoot, sessionId, sha256)).catch(() => undefined);
      if (bytes !== undefined && sha256Hex(bytes) === sha256) return bytes;
    }
    return undefined;
  }

  async mendEvidence(sessionId: string, options: { readonly dryRun: boolean }): Promise<readonly MendedItem[]> {
    const { layout, name } = this.store;
    const directory = layout.evidenceDirectory(sessionId);
    const names = await readdir(directory).catch((error: unknown) => (isAbsent(error) ? [] : Promise.reject(error)));
    const mended: MendedItem[] = [];
    for (const file of names.sort()) {
      if (isTempName(file) || !/^[0-9a-f]{64}$/.test(file)) continue;
      const path = join(directory, file);
      if (sha256Hex(await readFile(path)) === file) continue;
      const reason = 'its bytes do not match its SHA-256 (the spilled item is whole in its fold)';
      mended.push({
        what: layout.keyOf(path),
        reason,
        ...(options.dryRun ? {} : { where: await quarantineFsFile(layout, name, path) }),
      });
    }
    // The fs evidence store measures usage from the files themselves: nothing to recount.
    return mended;
  }

  async mendRequestLog(sessionId: string, options: { readonly dryRun: boolean }): Promise<RequestLogMend | undefined> {
    const { layout, name } = this.store;
    const text = await readFsRequestLogText(layout, name, sessionId);
    if (text === undefined) return undefined;
    const path = requestLogPath(layout, sessionId);
    const { rows, torn } = parseRequestLogText(text, name, layout.keyOf(path));
    if (torn.length === 0) return undefined;
    const mend = {
      damaged: torn.length,
      salvaged: torn.filter((line) => line.salvaged).length,
      kept: rows.length,
    };
    if (options.dryRun) return { ...mend, setAside: [] };
    // The whole log is kept aside as it was, then replaced in one rename by its readable rows.
    const aside = await quarantineFsCopy(layout, name, path);
    const mended = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    await replaceFileAtomically(path, Buffer.from(mended, 'utf8'), 0o644);
    return { ...mend, setAside: [aside] };
  }
}
