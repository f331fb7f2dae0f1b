import type { FoldWarning } from '../../ports/fold-warning.ts';
import { FoldError } from '../fold-error.ts';

/**
 * Store writes made while a request is being projected. The request must go out even when
 * the store refuses a write (its window is decided from what is already stored), so a
 * `STORE.*` failure becomes a warning instead of an error, and one outage yields one warning,
 * not one per request. Any other error is a bug and is thrown.
 */
export class StoreOutage {
  private down = false;
  private failure: FoldError | undefined;

  constructor(private readonly storeName: string) {}

  /** True from a refused write until a state save succeeds again. */
  get isDown(): boolean {
    return this.down;
  }

  /** The newest refusal, kept so a request refused for want of the commit can say what stopped it. */
  get lastFailure(): FoldError | undefined {
    return this.failure;
  }

  /**
   * Run `write`. Returns false when the store refused it; `explain` words the warning
   * (pushed only at the start of an outage). A successful write ends the outage when
   * `endsOutage` is set: a state save proves the store accepts writes again.
   */
  async attempt(
    write: () => Promise<void>,
    warnings: FoldWarning[],
    explain: (storeName: string, failure: FoldError) => FoldWarning,
    endsOutage: boolean,
  ): Promise<boolean> {
    try {
      await write();
    } catch (error) {
      if (!FoldError.isInstance(error) || !error.code.startsWith('STORE.')) throw error;
      if (!this.down) warnings.push(explain(this.storeName, error));
      this.down = true;
      this.failure = error;
      return false;
    }
    if (endsOutage) this.down = false;
    return true;
  }
}

/**
 * What lets folding go on after `failure`: the store's own remedy when it gave one (a local
 * limit, which waiting does not lift), else the store taking writes again.
 */
export function storeRemedy(failure: FoldError | undefined): string | undefined {
  const remedy = failure?.details.remedy;
  return typeof remedy === 'string' ? remedy : undefined;
}

/** The warning for a commit the store refused. */
export function skippedCommitWarning(storeName: string, failure: FoldError): FoldWarning {
  const resumes =
    storeRemedy(failure) === undefined
      ? 'Folding resumes once the store accepts writes'
      : 'Folding resumes once that is done';
  return {
    code: 'STORE.COMMIT_SKIPPED',
    message: `pi-fold: the commit was skipped because the ${storeName} store failed (${failure.message}); nothing was folded and the window is intact. ${resumes}; this is shown once per outage.`,
    details: { store: storeName, errorCode: failure.code },
  };
}

/** The warning for a state save the store refused. */
export function refusedSaveWarning(storeName: string, failure: FoldError): FoldWarning {
  const resumes = storeRemedy(failure) === undefined ? 'once the store accepts writes' : 'once that is done';
  return {
    code: 'STORE.SAVE_REFUSED',
    message: `pi-fold: the ${storeName} store refused to save this session's state (${failure.message}); the request goes out unchanged and folding resumes ${resumes}. This is shown once per outage.`,
    details: { store: storeName, errorCode: failure.code },
  };
}
