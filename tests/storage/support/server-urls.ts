/**
 * Where the real Redis and PostgreSQL servers are. `.ci/run` starts both on loopback and
 * exports their URLs; under CI a missing URL is a failure, never a silent skip.
 */
export const REDIS_URL_VARIABLE = 'PI_FOLD_TEST_REDIS_URL';
export const POSTGRES_URL_VARIABLE = 'PI_FOLD_TEST_POSTGRES_URL';

export interface ServerUrl {
  readonly url: string | undefined;
  /** Why the server's tests cannot run, when `url` is undefined. */
  readonly missingReason: string;
  /** True when the tests must fail rather than skip (CI). */
  readonly required: boolean;
}

export function serverUrl(variable: string): ServerUrl {
  const url = process.env[variable];
  const required = process.env.CI === 'true';
  const missingReason = `${variable} is not set; start the server (see .ci/storage-servers.sh) and export its URL`;
  if ((url === undefined || url === '') && !required)
    console.warn(`[pi-fold storage tests] skipping: ${missingReason}`);
  return { url: url === '' ? undefined : url, missingReason, required };
}
