/** One problem `verify` found in a store, named by the key (or path) where it lives. */
export interface StoreProblem {
  /** Key or root-relative path of the damaged item. */
  readonly key: string;
  /** FoldError code (or `STORE.UNKNOWN_ENTRY` for something that should not be there). */
  readonly code: string;
  readonly message: string;
}

/** What an audit of a whole store found. */
export interface StoreAuditReport {
  /** Items re-hashed and found intact, by kind. */
  readonly checked: { blobs: number; folds: number; states: number; evidence: number };
  readonly problems: StoreProblem[];
  /** Harmless leftovers worth knowing about, e.g. temp files of interrupted writes. */
  readonly notes: string[];
}

export function emptyAuditReport(): StoreAuditReport {
  return { checked: { blobs: 0, folds: 0, states: 0, evidence: 0 }, problems: [], notes: [] };
}

/** Run one check, recording its failure as a problem of `key` instead of stopping the audit. */
export async function auditItem(
  report: StoreAuditReport,
  key: string,
  check: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await check();
    return true;
  } catch (error) {
    const code =
      typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'STORE.READ_FAILED';
    report.problems.push({ key, code, message: error instanceof Error ? error.message : String(error) });
    return false;
  }
}
