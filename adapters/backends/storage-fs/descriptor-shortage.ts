/**
 * Running out of file descriptors is a local condition, not an outage: no amount of waiting
 * for "the store" ends it if the process itself holds too many files. The store bounds its
 * own fan-out (atomic-files.ts, `SYNCS_IN_FLIGHT`), so a shortage means something else in the
 * process (the host, another library) holds most of the limit for a moment. A call that
 * meets one is tried again after a short wait, a few times, since descriptors held by calls
 * under way are released as they finish; only then does it fail, and the failure says what
 * it is and what raises the limit (`storeFailure` in fs-errors.ts).
 */

/** Waits before each new attempt, in ms: about two seconds in all before giving up. */
const RETRY_DELAYS_MS = [5, 20, 80, 250, 600, 1_000] as const;

/** Whether `error` says this process (EMFILE) or the whole system (ENFILE) has no descriptor left. */
export function isDescriptorShortage(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

/**
 * Make `call`, which opens a file or directory; on a descriptor shortage wait and try again.
 * A call that opens nothing new before it fails (the open is what fails) is safe to repeat.
 */
export async function retryingOnShortage<T>(call: () => T | Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const delay = RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !isDescriptorShortage(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** What a person can do about a shortage, for the error and the refusal that quotes it. */
export function shortageRemedy(error: unknown): string {
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENFILE')
    return "the system's table of open files is full: close programs that hold many files, or raise the system's limit (fs.file-max on Linux), then send the request again; nothing is lost meanwhile";
  return 'this process has reached its limit on open files: raise it in the shell that starts the host (`ulimit -n 4096`, or more) and start the host again; nothing is lost meanwhile';
}
