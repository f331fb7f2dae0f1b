import type { FoldWarning } from '../ports/shared-types.ts';

/**
 * The state save that waits for a request's evidence writes. At most one runs at a time; a
 * newer state replaces one not yet started (the newest decisions are what a restart needs).
 */
export class LaterSave {
  /** Warnings of deferred saves, handed to the next request. */
  readonly warnings: FoldWarning[] = [];
  private next: (() => Promise<void>) | undefined;
  private running: Promise<void> | undefined;
  private failure: unknown;

  /** Whether a deferred save is queued or under way. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  schedule(write: () => Promise<void>): void {
    this.next = write;
    this.running ??= this.drain();
  }

  /**
   * Wait until every scheduled save has finished.
   * @throws an error of a save that was not the store's refusal (a bug is never swallowed).
   */
  async settled(): Promise<void> {
    while (this.running !== undefined) await this.running;
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
  }

  /** The warnings collected since the last call. */
  takeWarnings(): FoldWarning[] {
    return this.warnings.splice(0, this.warnings.length);
  }

  private async drain(): Promise<void> {
    while (this.next !== undefined) {
      const write = this.next;
      this.next = undefined;
      try {
        await write();
      } catch (error) {
        this.failure ??= error;
      }
    }
    this.running = undefined;
  }
}
