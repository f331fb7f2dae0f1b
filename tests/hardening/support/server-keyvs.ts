import KeyvPostgres from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';

/**
 * Keyv instances configured to FAIL FAST while their server is down, the configuration
 * docs/reliability.md recommends. With node-redis's defaults a command issued while Redis
 * is down waits in an offline queue until the server returns, so a model request would hang
 * instead of going out; `disableOfflineQueue` turns that into an immediate error the runtime
 * can survive. For PostgreSQL, idle pool clients are closed at once: @keyv/postgres keeps a
 * module-private pg Pool with no 'error' listener, and an idle client that loses its server
 * makes that pool emit an unhandled 'error' that ends the whole process.
 */
export function failFastRedisKeyv(url: string, namespace: string): Keyv {
  const store = new KeyvRedis(
    {
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 2_000, reconnectStrategy: (retries: number) => Math.min(50 * (retries + 1), 500) },
    },
    { throwOnConnectError: true, throwOnErrors: true },
  );
  return new Keyv({ store, namespace, throwOnErrors: true, useKeyPrefix: false });
}

export function failFastPostgresKeyv(url: string, namespace: string): Keyv {
  const store = new KeyvPostgres({
    uri: url,
    keySize: 512,
    table: 'pi_fold_test',
    idleTimeoutMillis: 1,
    connectionTimeoutMillis: 2_000,
  } as ConstructorParameters<typeof KeyvPostgres>[0]);
  return new Keyv({ store, namespace, throwOnErrors: true });
}
