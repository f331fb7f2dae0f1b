import type { Dirent } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FoldError } from '../../../core/fold-error.ts';
import { assertBlobMatches } from '../storage-shared/blob-checks.ts';
import { auditItem, emptyAuditReport, type StoreAuditReport } from '../storage-shared/store-audit.ts';
import { isTempName } from './atomic-files.ts';
import { isAbsent } from './fs-errors.ts';
import { FsFoldStore } from './fs-fold-store.ts';
import { QUARANTINE_DIRECTORY } from './fs-quarantine.ts';
import { parseRequestLogText, REQUEST_LOG_FILE, readFsRequestLogText, requestLogPath } from './fs-request-log.ts';

const SHA256_NAME = /^[0-9a-f]{64}$/;

/**
 * Re-hash every blob, fold record, engine state and evidence artifact under a filesystem
 * store root and report each problem by its root-relative path. Reads only.
 */
export async function auditFsStore(root: string): Promise<StoreAuditReport> {
  const store = new FsFoldStore({ root });
  const layout = store.layout;
  const report = emptyAuditReport();
  const unknown = (key: string) =>
    report.problems.push({ key, code: 'STORE.UNKNOWN_ENTRY', message: `${key} is not a pi-fold store file` });
  const temp = (key: string) =>
    report.notes.push(`${key} is a temp file left by an interrupted write (harmless; safe to delete)`);

  for (const prefix of await listOrEmpty(layout.blobsDirectory, report)) {
    const prefixPath = join(layout.blobsDirectory, prefix);
    for (const name of await listOrEmpty(prefixPath, report)) {
      const key = layout.keyOf(join(prefixPath, name));
      if (isTempName(name)) temp(key);
      else if (!SHA256_NAME.test(name) || name.slice(0, 2) !== prefix) unknown(key);
      else if (await auditItem(report, key, () => store.getBlob(name))) report.checked.blobs += 1;
    }
  }

  for (const sessionId of await listOrEmpty(layout.sessionsDirectory, report)) {
    const sessionKey = layout.keyOf(join(layout.sessionsDirectory, sessionId));
    const valid = await auditItem(report, sessionKey, async () => layout.sessionDirectory(sessionId));
    if (!valid) continue;
    for (const name of await listOrEmpty(join(layout.sessionDirectory(sessionId)), report)) {
      if (
        name === 'state.json' &&
        (await auditItem(report, `${sessionKey}/state.json`, () => store.loadState(sessionId)))
      )
        report.checked.states += 1;
      else if (isTempName(name)) temp(`${sessionKey}/${name}`);
      else if (name === REQUEST_LOG_FILE) await auditRequestLog(store, sessionId, report);
      else if (name !== 'folds' && name !== 'state.json') unknown(`${sessionKey}/${name}`);
    }
    const foldsDirectory = layout.foldsDirectory(sessionId);
    for (const name of await listOrEmpty(foldsDirectory, report)) {
      const key = layout.keyOf(join(foldsDirectory, name));
      if (isTempName(name)) temp(key);
      else if (!name.endsWith('.json')) unknown(key);
      else if (await auditItem(report, key, () => store.getFold(sessionId, name.slice(0, -'.json'.length))))
        report.checked.folds += 1;
    }
  }

  for (const sessionId of await listOrEmpty(layout.evidenceRoot, report)) {
    const directory = join(layout.evidenceRoot, sessionId);
    for (const name of await listOrEmpty(directory, report)) {
      const key = layout.keyOf(join(directory, name));
      if (isTempName(name)) temp(key);
      else if (!SHA256_NAME.test(name)) unknown(key);
      else if (
        await auditItem(report, key, async () =>
          assertBlobMatches(await readFile(join(directory, name)), name, 'fs-evidence', key),
        )
      )
        report.checked.evidence += 1;
    }
  }
  const quarantined = await countFiles(join(layout.root, QUARANTINE_DIRECTORY));
  if (quarantined > 0)
    report.notes.push(
      `${quarantined} file(s) under ${QUARANTINE_DIRECTORY}/ were set aside by \`pi-fold repair\` (kept byte for byte; delete them when you no longer need them)`,
    );
  return report;
}

/** Every torn line of a session's request log is a problem of its own (the log reads past it). */
async function auditRequestLog(store: FsFoldStore, sessionId: string, report: StoreAuditReport): Promise<void> {
  const key = store.layout.keyOf(requestLogPath(store.layout, sessionId));
  await auditItem(report, key, async () => {
    const text = await readFsRequestLogText(store.layout, store.name, sessionId);
    if (text === undefined) return;
    for (const torn of parseRequestLogText(text, store.name, key).torn)
      report.problems.push({
        key: `${key} line ${torn.line}`,
        code: 'STORE.HASH_MISMATCH',
        message: `${key} line ${torn.line} is not valid JSON (a torn write${torn.salvaged ? ', with a whole row appended after it' : ''}); \`pi-fold repair <store> --session ${sessionId}\` rewrites the log without it`,
      });
  });
}

async function countFiles(directory: string): Promise<number> {
  let entries: Dirent[];
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch {
    return 0;
  }
  let files = 0;
  for (const entry of entries) files += entry.isDirectory() ? await countFiles(join(directory, entry.name)) : 1;
  return files;
}

async function listOrEmpty(directory: string, report: StoreAuditReport): Promise<string[]> {
  try {
    return (await readdir(directory)).sort();
  } catch (error) {
    if (isAbsent(error)) return [];
    report.problems.push({
      key: directory,
      code: 'STORE.READ_FAILED',
      message: `cannot list ${directory}: ${(error as Error).message}`,
    });
    return [];
  }
}

/** Refuse a root that does not exist, so a typo is not reported as "a clean, empty store". */
export async function assertStoreRootExists(root: string): Promise<void> {
  try {
    await readdir(root);
  } catch (error) {
    throw new FoldError(
      'STORE.NOT_FOUND',
      `fs store: cannot open store root ${root} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: error, details: { root } },
    );
  }
}
