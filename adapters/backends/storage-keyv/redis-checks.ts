import { FoldError } from '../../../core/fold-error.ts';

/**
 * What a Keyv-backed store checks of a Redis backend (`@keyv/redis`), recognised by shape so
 * this adapter needs no Redis package of its own: its configuration before the first
 * connection, then, once connected, that the server will not evict what it holds.
 */

/** The part of `@keyv/redis`'s adapter these checks read. */
interface RedisAdapter {
  readonly client: RedisClient;
  readonly throwOnErrors?: boolean;
  getClient(): Promise<RedisClient>;
  on?(event: 'error', listener: (error: unknown) => void): unknown;
  off?(event: 'error', listener: (error: unknown) => void): unknown;
}

/** The part of a node-redis client these checks use. */
interface RedisClient {
  readonly isOpen?: boolean;
  readonly isReady?: boolean;
  once?(event: 'ready' | 'error', listener: (value?: unknown) => void): unknown;
  off?(event: 'ready' | 'error', listener: (value?: unknown) => void): unknown;
  configGet?(parameter: string): Promise<Record<string, string>>;
  info?(section: string): Promise<string>;
  destroy?(): unknown;
  unref?(): unknown;
}

/** The Redis adapter behind a Keyv, or undefined when the backend is not Redis. */
export function redisAdapterOf(store: unknown): RedisAdapter | undefined {
  const candidate = store as Partial<RedisAdapter> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    !('keyPrefixSeparator' in candidate) ||
    typeof candidate.getClient !== 'function' ||
    typeof candidate.client !== 'object'
  )
    return undefined;
  return candidate as RedisAdapter;
}

/** The client options that make a Redis store fail fast; named in refusals. */
export const FAIL_FAST_REDIS =
  'new KeyvRedis({ url, disableOfflineQueue: true, socket: { connectTimeout: 2000, reconnectStrategy: (n) => Math.min(50 * (n + 1), 500) } }, { throwOnConnectError: true, throwOnErrors: true })';

/**
 * Refuse, before any connection, a Redis adapter that would hide failures: `@keyv/redis`
 * catches a failed command and answers it as a miss (`undefined`, `false`) unless its own
 * `throwOnErrors` is set, whatever the Keyv's is, so a lost write would read as a success.
 */
export function checkRedisConfiguration(adapter: RedisAdapter, storeName: string): void {
  if (adapter.throwOnErrors === true) return;
  throw new FoldError(
    'SETTINGS.INVALID',
    `${storeName} store: the @keyv/redis adapter must be created with { throwOnErrors: true } (its second argument); otherwise a failed command reads as a missing value and a failed write as a success. For example ${FAIL_FAST_REDIS}`,
  );
}

/** Eviction policies that may evict a key without a TTL: any fold record or blob (pi-fold sets no TTLs). */
const EVICTS_ANY_KEY = /^allkeys-/;

/** What the connected server said of itself. */
export interface RedisServerFacts {
  /** `maxmemory-policy`, or undefined when the server would not say (CONFIG and INFO both refused). */
  readonly evictionPolicy: string | undefined;
}

/**
 * Wait until the client is connected and ready, then read the server's eviction policy. A
 * client whose connection is still being set up (another call began it) is waited for,
 * rather than sent a command it would refuse as offline.
 */
export async function connectRedis(adapter: RedisAdapter): Promise<RedisServerFacts> {
  // The adapter replaces a failed connection's error with a generic one; the first it emitted says why.
  let reason: unknown;
  const onError = (error: unknown) => {
    reason ??= error;
  };
  adapter.on?.('error', onError);
  try {
    const client = await adapter.getClient();
    if (client.isReady === false) await readyEvent(client);
    return { evictionPolicy: await evictionPolicy(client) };
  } catch (error) {
    throw reason instanceof Error ? reason : error;
  } finally {
    adapter.off?.('error', onError);
  }
}

function readyEvent(client: RedisClient): Promise<void> {
  if (client.once === undefined || client.off === undefined) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onReady = () => {
      client.off?.('error', onError);
      resolve();
    };
    const onError = (error: unknown) => {
      client.off?.('ready', onReady);
      reject(error);
    };
    client.once?.('ready', onReady);
    client.once?.('error', onError);
  });
}

/** CONFIG GET first; managed servers that disable CONFIG still report the policy in INFO. */
async function evictionPolicy(client: RedisClient): Promise<string | undefined> {
  try {
    const policy = (await client.configGet?.('maxmemory-policy'))?.['maxmemory-policy'];
    if (typeof policy === 'string') return policy;
  } catch {
    // Fall through to INFO.
  }
  try {
    const memory = await client.info?.('memory');
    return memory?.match(/^maxmemory_policy:(\S+)/m)?.[1];
  } catch {
    return undefined;
  }
}

/**
 * Why a server may lose fold records or blobs, or `undefined` when its policy keeps every
 * key (`noeviction`; `volatile-*` evicts only keys with a TTL, and pi-fold sets none, so a
 * full server refuses writes instead, which the runtime survives).
 */
export function evictionRisk(storeName: string, facts: RedisServerFacts): string | undefined {
  const policy = facts.evictionPolicy;
  if (policy === undefined || !EVICTS_ANY_KEY.test(policy)) return undefined;
  return `${storeName} store: the server's maxmemory-policy is ${policy}, which evicts any key once memory runs out, fold records and blobs included, and their bytes would be lost; set it to noeviction (CONFIG SET maxmemory-policy noeviction)`;
}

/** The refusal of such a server, with the way to use it anyway. */
export function evictionRefusal(risk: string, facts: RedisServerFacts): FoldError {
  return new FoldError('SETTINGS.INVALID', `${risk}, or pass evictingServer: 'warn' to use this server anyway`, {
    details: { evictionPolicy: facts.evictionPolicy },
  });
}
