import { FoldError } from '../core/fold-error.ts';

/** Something a container built and must therefore close. */
interface Closable {
  dispose?(): Promise<void> | void;
}

/**
 * What one container owns: the adapters its factories built, closed when the container is.
 *
 * tsyringe disposes only the instances it constructed from a class, not what a factory
 * returns, so each container resolves one `PortOwner` (constructed by tsyringe, hence on the
 * container's dispose list) and its factories hand every store they build to it. Values a
 * host registered are never adopted: they belong to the host.
 */
export class PortOwner {
  private readonly owned: Closable[] = [];
  private closed = false;

  /** Take `resource` into this container's care and hand it back. */
  adopt<T extends Closable>(resource: T): T {
    if (this.closed)
      throw new FoldError(
        'INVARIANT.BROKEN',
        'a disposed session container was asked to build a store; open a new runtime instead',
      );
    this.owned.push(resource);
    return resource;
  }

  /** Close everything adopted, newest first; every one is tried, and the first failure is rethrown. */
  async dispose(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    let failure: { error: unknown } | undefined;
    for (const resource of this.owned.reverse()) {
      try {
        await resource.dispose?.();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }
}
