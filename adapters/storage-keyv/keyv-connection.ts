import type Keyv from 'keyv';
import { FoldError } from '../../core/fold-error.ts';

/** Options shared by every Keyv-backed store. */
export interface KeyvStoreOptions {
  /**
   * Any Keyv instance (SQLite, Redis, PostgreSQL, …). It must be created with
   * `throwOnErrors: true` — a failing backend must never look like a miss — and its adapter
   * must support iteration (listing and `verify` walk the namespace).
   */
  readonly keyv: Keyv;
  /** Name used in error messages. @default the adapter's dialect (`sqlite`, `redis`, `postgres`) or `keyv` */
  readonly name?: string;
  /** Several processes may share this store. @default true for redis and postgres, else false */
  readonly shared?: boolean;
  /** Disconnect the Keyv on `dispose()`; set when this store created it. @default false */
  readonly ownsConnection?: boolean;
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
  private readonly ownsConnection: boolean;
  private disposed = false;

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
    this.shared = options.shared ?? (dialect !== undefined && SHARED_DIALECTS.includes(dialect));
    this.ownsConnection = options.ownsConnection ?? false;
  }

  /** Read a value; `undefined` only when the key is truly absent. */
  async read(key: string, action: string): Promise<unknown> {
    try {
      return await this.keyv.get(key);
    } catch (error) {
      throw this.failure('STORE.READ_FAILED', action, key, error);
    }
  }

  async has(key: string, action: string): Promise<boolean> {
    try {
      return await this.keyv.has(key);
    } catch (error) {
      throw this.failure('STORE.READ_FAILED', action, key, error);
    }
  }

  async write(key: string, value: unknown, action: string): Promise<void> {
    let written: boolean;
    try {
      written = await this.keyv.set(key, value);
    } catch (error) {
      throw this.failure('STORE.WRITE_FAILED', action, key, error);
    }
    if (!written)
      throw this.failure('STORE.WRITE_FAILED', action, key, new Error('the adapter reported the write as failed'));
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
    try {
      for await (const [key, value] of iterator()) {
        if (emitted !== undefined) break;
        yield [String(key), value];
      }
    } catch (error) {
      throw this.failure('STORE.READ_FAILED', action, '(namespace)', error);
    } finally {
      emitter?.off('error', onError);
    }
    if (emitted !== undefined) throw this.failure('STORE.READ_FAILED', action, '(namespace)', emitted.error);
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    if (this.ownsConnection) await this.keyv.disconnect();
  }

  failure(code: 'STORE.READ_FAILED' | 'STORE.WRITE_FAILED', action: string, key: string, error: unknown): FoldError {
    if (FoldError.isInstance(error)) return error;
    const reason = error instanceof Error ? error.message : String(error);
    return new FoldError(code, `${this.name} store failed to ${action} ${key} (${reason})`, {
      cause: error,
      details: { key, reason },
    });
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
