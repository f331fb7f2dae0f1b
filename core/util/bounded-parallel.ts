/**
 * Run `work` over `items` with at most `limit` calls under way at once. Stops starting new
 * calls after the first failure, waits for those already started (nothing is left running
 * when this returns), then throws that first failure.
 *
 * A commit's store writes are independent of one another (content-addressed blobs, one
 * record per fold): run one after another, each pays a full round trip to the store (a
 * threadpool hop on the filesystem, a network hop on a server), most of it waiting.
 */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failed = false;
  let failure: unknown;
  const worker = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const item = items[next]!;
      next += 1;
      try {
        await work(item);
      } catch (error) {
        if (!failed) failure = error;
        failed = true;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failed) throw failure;
}
