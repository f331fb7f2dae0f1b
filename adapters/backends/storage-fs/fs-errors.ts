import { FoldError } from '../../../core/fold-error.ts';
import { isDescriptorShortage, shortageRemedy } from './descriptor-shortage.ts';

/** Whether a filesystem error means "nothing is there" (and nothing else). */
export function isAbsent(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * Wrap a filesystem failure as a FoldError naming the store and key. FoldErrors raised by
 * our own checks pass through unchanged. A descriptor shortage says so in words and carries
 * its remedy (`details.remedy`): it is the process's limit, which waiting for the store
 * does not lift.
 */
export function storeFailure(
  code: 'STORE.READ_FAILED' | 'STORE.WRITE_FAILED',
  storeName: string,
  action: string,
  key: string,
  error: unknown,
): FoldError {
  if (FoldError.isInstance(error)) return error;
  const reason =
    (error as NodeJS.ErrnoException | undefined)?.code ?? (error instanceof Error ? error.message : String(error));
  if (isDescriptorShortage(error)) {
    const remedy = shortageRemedy(error);
    return new FoldError(
      code,
      `${storeName} store failed to ${action} ${key}: too many open files (${reason}); ${remedy}`,
      { cause: error, details: { key, reason, remedy } },
    );
  }
  return new FoldError(code, `${storeName} store failed to ${action} ${key} (${reason})`, {
    cause: error,
    details: { key, reason },
  });
}
