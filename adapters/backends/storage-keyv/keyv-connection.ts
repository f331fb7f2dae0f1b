import type Keyv from 'keyv';
import { FoldError } from '../../../core/fold-error.ts';
import { checkedCallTimeout, DeadlinePassed, withinDeadline } from './keyv-deadline.ts';
import { decodeDamagedRowsAsMarkers } from './keyv-unreadable-rows.ts';
import {
  checkRedisConfiguration,
  connectRedis,
  evictionRefusal,
  evictionRisk,
  type RedisServerFacts,
  redisAdapterOf,
} from './redis-checks.ts';

/** Options shared by every Keyv-backed store. */
export interface KeyvStoreOptions {
  /**
   * Any Keyv instance (SQLite, Redis, PostgreSQL, …). It must be created with
   * `throwOnErrors: true` — a failing backend must never look like a miss — and its adapter
   * must support iteration (listing and `verify` walk the namespace). The store wraps the
   * Keyv's decoder once, so a row it cannot decode reads as damage of that key instead of
   * throwing out of every walk (rows it can decode read exactly as before).
   */
  readonly keyv: Keyv;
  /** Name used in error messages. @default the adapter's dialect (`sqlite`, `redis`, `postgres`) or `keyv` */
  readonly name?: string;
  /** Several processes may share this store. @default true for redis and postgres, else false */
  readonly shared?: boolean;
  /** Disconnect the Keyv on `dispose()`; set when this store created it. @default false */
  readonly ownsConnection?: boolean;
  /**
   * How long one store call may wait for the backend before it fails with
   * `STORE.READ_FAILED` / `STORE.WRITE_FAILED` ("no answer within … ms"); `Infinity` for no
   * limit. The first call also waits for a Redis client to connect, within the same limit.
   * @default 15000
   */
  readonly callTimeoutMs?: number;
  /**
   * A Redis server whose `maxmemory-policy` may evict any key (`allkeys-*`) would lose fold
   * records and blobs: the first call refuses it (`SETTINGS.INVALID`), or with `'warn'`
   * goes on and passes the warning to `onWarning`.
   * @default 'refuse'
   */
  readonly evictingServer?: 'refuse' | 'warn';
  /** Told what `evictingServer: 'warn'` lets through. @default console.warn */
  readonly onWarning?: (message: string) => void;
}

const SHARED_DIALECTS = ['redis', 'postgres', 'mysql', 'mongo', 'valkey', 'etcd'];

/**
 * The checked wrapper every Keyv-backed store talks through: refuses a Keyv that would hide
 * failures, turns backend errors into FoldErrors naming the store and key, and owns dispose.
 */
export class KeyvConnection {
  readonly keyv: Keyv;
  readonly name: string;
  readonly shared: boolean;
  /** Per call, in ms (`Infinity`: none). */
  readonly callTimeoutMs: number;
  private readonly ownsConnection: boolean;
  private readonly redis: ReturnType<typeof redisAdapterOf>;
  private readonly evictingServer: 'refuse' | 'warn';
  private readonly onWarning: (message: string) => void;
  /** The first connection and its checks, while under way (cleared when it fails, so a later call tries again). */
  private opening: Promise<void> | undefined;
  private opened = false;
  private disposed = false;
  /** A call ran out of time: the backend is not answering, so closing does not wait for it either. */
  private unanswered = false;

  constructor(options: KeyvStoreOptions, fallbackName: string) {
    const keyv = options?.keyv;
    if (typeof keyv !== 'object' || keyv === null || typeof keyv.get !== 'function') {
      throw new FoldError('SETTINGS.INVALID', `${fallbackName} store needs a Keyv instance in options.keyv`);
    }
    const dialect = detectDialect(keyv);
    this.name = options.name ?? dialect ?? fallbackName;
    if (keyv.throwOnErrors !== true) {
      throw new FoldError(
        'SETTINGS.INVALID',
        `${this.name} store: create the Keyv with { throwOnErrors: true }; otherwise a failing backend reads as a missing value`,
      );
    }
    if (typeof keyv.iterator !== 'function') {
      throw new FoldError(
        'SETTINGS.INVALID',
        `${this.name} store: the Keyv adapter must support iteration (sqlite, redis, postgres, mysql, mongo, or a Map) to list folds and verify the store`,
      );
    }
    this.keyv = keyv;
    // One damaged row must fail the read of its own key, never a walk of every session's keys.
    decodeDamagedRowsAsMarkers(keyv);
    this.shared = options.shared ?? (dialect !== undefined && SHARED_DIALECTS.includes(dialect));
    this.ownsConnection = options.ownsConnection ?? false;
    this.callTimeoutMs = checkedCallTimeout(options.callTimeoutMs, this.name);
    if (options.evictingServer !== undefined && !['refuse', 'warn'].includes(options.evictingServer))
      throw new FoldError(
        'SETTINGS.INVALID',
        `${this.name} store: evictingServer must be 'refuse' or 'warn', got ${String(options.evictingServer)}`,
      );
    this.evictingServer = options.evictingServer ?? 'refuse';
    this.onWarning = options.onWarning ?? ((message) => console.warn(message));
    // Configuration is checked here, before anything connects: a mistake fails at open, not mid-session.
    this.redis = redisAdapterOf(keyv.store);
    if (this.redis !== undefined) checkRedisConfiguration(this.redis, this.name);
  }

  /** Read a value; `undefined` only when the key is truly absent. */
  async read(key: string, action: string): Promise<unknown> {
    return this.call('STORE.READ_FAILED', action, key, () => this.keyv.get(key));
  }

  async has(key: string, action: string): Promise<boolean> {
    return this.call('STORE.READ_FAILED', action, key, () => this.keyv.has(key));
  }

  async write(key: string, value: unknown, action: string): Promise<void> {
    const written = await this.call('STORE.WRITE_FAILED', action, key, () => this.keyv.set(key, value));
    if (!written)
      throw this.failure('STORE.WRITE_FAILED', action, key, new Error('the adapter reported the write as failed'));
  }

  async remove(key: string, action: string): Promise<void> {
    await this.call('STORE.WRITE_FAILED', action, key, () => this.keyv.delete(key));
  }

  /** One backend call, after the first connection, within the call deadline; any failure named. */
  private async call<T>(
    code: 'STORE.READ_FAILED' | 'STORE.WRITE_FAILED',
    action: string,
    key: string,
    work: () => Promise<T>,
  ): Promise<T> {
    await this.open(code);
    try {
      return await withinDeadline(this.callTimeoutMs, work);
    } catch (error) {
      throw this.failure(code, action, key, this.noted(error));
    }
  }

  /** A failure, noting whether it was the deadline (see `dispose`). */
  private noted(error: unknown): unknown {
    if (error instanceof DeadlinePassed) this.unanswered = true;
    return error;
  }

  /**
   * Connect and check the server once, before the first call. Every call waits for it, so
   * calls made while the client is still connecting are not refused as offline.
   */
  private async open(code: 'STORE.READ_FAILED' | 'STORE.WRITE_FAILED'): Promise<void> {
    const redis = this.redis;
    if (this.opened || redis === undefined) return;
    this.opening ??= (async () => {
      try {
        this.admit(await withinDeadline(this.callTimeoutMs, () => connectRedis(redis)));
      } catch (error) {
        this.opening = undefined;
        throw this.noted(error);
      }
    })();
    try {
      await this.opening;
    } catch (error) {
      throw this.failure(code, 'connect to', serverAddress(this.keyv), error);
    }
  }

  private admit(facts: RedisServerFacts): void {
    const risk = evictionRisk(this.name, facts);
    if (risk !== undefined && this.evictingServer === 'refuse') throw evictionRefusal(risk, facts);
    if (risk !== undefined) this.onWarning(risk);
    this.opened = true;
  }

  /** Every [key, value] of the namespace. Keys are as the adapter reports them (for messages). */
  async *entries(action: string): AsyncGenerator<[string, unknown]> {
    const iterator = this.keyv.iterator as unknown as () => AsyncGenerator<[string, unknown]>;
    // Some adapters (@keyv/postgres 2.x) end an iteration early on a failed query and only
    // emit 'error'; a listing cut short must fail, never pass as "that was everything" (gc
    // would take a missed session's blobs for garbage).
    const emitter = eventSource(this.keyv);
    let emitted: { error: unknown } | undefined;
    const onError = (error: unknown) => {
      emitted ??= { error };
    };
    emitter?.on('error', onError);
    await this.open('STORE.READ_FAILED');
    const pages = iterator();
    try {
      for (;;) {
        // Each step of the walk has the deadline of one call.
        const step = await withinDeadline(this.callTimeoutMs, () => pages.next());
        if (step.done === true || emitted !== undefined) break;
        const [key, value] = step.value;
        yield [String(key), value];
      }
    } catch (error) {
      throw this.failure('STORE.READ_FAILED', action, '(namespace)', this.noted(error));
    } finally {
      emitter?.off('error', onError);
      // A walk left early (or timed out) releases the adapter's cursor; a hung one is not waited for.
      void pages.return(undefined).catch(() => undefined);
    }
    if (emitted !== undefined) throw this.failure('STORE.READ_FAILED', action, '(namespace)', emitted.error);
  }

  /**
   * Close the connection this store owns. A polite close waits for the answers still owed,
   * which a backend that stopped answering never sends: after a call ran out of time the
   * Redis connection is torn down at once, and a polite close that runs out of time is too.
   * Nothing of it is left to keep the process alive (a command must exit).
   */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (!this.ownsConnection) return;
    if (this.unanswered && this.redis !== undefined) {
      tearDownRedis(this.redis.client);
      return;
    }
    try {
      await withinDeadline(this.callTimeoutMs, () => this.keyv.disconnect());
    } catch (error) {
      if (!(error instanceof DeadlinePassed)) throw error;
      if (this.redis !== undefined) tearDownRedis(this.redis.client);
    }
  }

  failure(code: 'STORE.READ_FAILED' | 'STORE.WRITE_FAILED', action: string, key: string, error: unknown): FoldError {
    if (FoldError.isInstance(error)) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new FoldError(code, `${this.name} store failed to ${action} ${key} (${reason})`, {
      cause: error,
      details: { key, reason, ...(error instanceof DeadlinePassed ? { timeoutMs: error.timeoutMs } : {}) },
    });
  }
}

/**
 * Drop a Redis connection without waiting for the server. A client a polite close already
 * began refuses `destroy` (it counts itself closed while it waits for its answers); its
 * socket is then let go of (`unref`), so it no longer holds the process open.
 */
function tearDownRedis(client: { destroy?(): unknown; unref?(): unknown }): void {
  try {
    client.destroy?.();
  } catch {
    try {
      client.unref?.();
    } catch {
      // Nothing is left open.
    }
  }
}

/** Where the backend is, for messages: the adapter's URL without its password. */
function serverAddress(keyv: Keyv): string {
  const url = (keyv.store as { opts?: { url?: unknown } } | undefined)?.opts?.url;
  if (typeof url !== 'string') return 'the server';
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the server';
  }
}

function detectDialect(keyv: Keyv): string | undefined {
  const store = keyv.store as { opts?: { dialect?: unknown } } | undefined;
  if (typeof store?.opts?.dialect === 'string') return store.opts.dialect;
  // @keyv/redis has no dialect option; recognise it by its client.
  if (
    store !== undefined &&
    store !== null &&
    typeof store === 'object' &&
    'client' in store &&
    'keyPrefixSeparator' in store
  )
    return 'redis';
  return undefined;
}

interface ErrorEvents {
  on(event: 'error', listener: (error: unknown) => void): unknown;
  off(event: 'error', listener: (error: unknown) => void): unknown;
}

/** The adapter itself when it emits events (it emits before Keyv's own `emitErrors` filter), else the Keyv. */
function eventSource(keyv: Keyv): ErrorEvents | undefined {
  for (const candidate of [keyv.store as unknown, keyv as unknown]) {
    const events = candidate as Partial<ErrorEvents> | null;
    if (
      typeof events === 'object' &&
      events !== null &&
      typeof events.on === 'function' &&
      typeof events.off === 'function'
    )
      return events as ErrorEvents;
  }
  return undefined;
}
