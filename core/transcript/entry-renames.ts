import type { ProjectedMessage } from '../../ports/projected-message.ts';

/**
 * Entries the host handed back in place with their bytes unchanged under a new id
 * (docs/behaviour.md B6.6). The engine keeps knowing each by the id it first saw, the one
 * its folds, marks, pins and inserts name; only what goes back to the host is given the
 * host's current id. Empty for a host whose ids are stable, so it then costs nothing.
 */
export class EntryRenames {
  private readonly hostIdByKnownId = new Map<string, string>();
  private readonly knownIdByHostId = new Map<string, string>();

  get size(): number {
    return this.hostIdByKnownId.size;
  }

  /** The id the host now gives the entry the engine knows as `knownId`. */
  hostIdOf(knownId: string): string {
    // Asked for every held entry a whole-branch read compares: no lookup for a host that never renamed.
    if (this.hostIdByKnownId.size === 0) return knownId;
    return this.hostIdByKnownId.get(knownId) ?? knownId;
  }

  /** The id the engine knows the entry by that the host now calls `hostId`, if the host renamed it. */
  knownIdOf(hostId: string): string | undefined {
    return this.knownIdByHostId.get(hostId);
  }

  /** The host now calls `knownId` by `hostId` (its first id again undoes the rename). */
  rename(knownId: string, hostId: string): void {
    this.forget(knownId);
    if (hostId === knownId) return;
    this.hostIdByKnownId.set(knownId, hostId);
    this.knownIdByHostId.set(hostId, knownId);
  }

  /** The entry left the branch. */
  forget(knownId: string): void {
    const hostId = this.hostIdByKnownId.get(knownId);
    if (hostId === undefined) return;
    this.hostIdByKnownId.delete(knownId);
    this.knownIdByHostId.delete(hostId);
  }

  /** A projection's messages as the host knows its entries. */
  hostMessages(messages: readonly ProjectedMessage[]): readonly ProjectedMessage[] {
    if (this.hostIdByKnownId.size === 0) return messages;
    return messages.map((message) => {
      if (message.kind === 'synthetic') return message;
      const hostId = this.hostIdByKnownId.get(message.entryId);
      return hostId === undefined ? message : { ...message, entryId: hostId };
    });
  }
}
