import type { KeyvConnection } from './keyv-connection.ts';
import { storedText } from './keyv-unreadable-rows.ts';

/** Kind of a value `repair` set aside: the exact text of a damaged row, kept for a person to look at. */
export const QUARANTINED_KIND = 'quarantined';

export interface QuarantinedValue {
  readonly kind: typeof QUARANTINED_KIND;
  /** The key it was stored under. */
  readonly key: string;
  readonly reason: string;
  /** When it was set aside (ISO 8601). */
  readonly at: string;
  /** The text the backend held under `key`. */
  readonly text: string;
}

/**
 * Set a damaged value aside: its exact text is written under `quarantine/<key>@<time>` first,
 * and only then is the key removed, so a crash between the two leaves a copy, never nothing.
 * Nothing under `quarantine/` is read by a runtime, listed as a session or taken by gc.
 */
export async function quarantineKeyvValue(
  connection: KeyvConnection,
  key: string,
  value: unknown,
  reason: string,
): Promise<string> {
  const at = new Date();
  const aside = `quarantine/${key}@${at.getTime()}`;
  const kept: QuarantinedValue = { kind: QUARANTINED_KIND, key, reason, at: at.toISOString(), text: storedText(value) };
  await connection.write(aside, kept, 'set aside a damaged value as');
  await connection.remove(key, 'remove the damaged value');
  return aside;
}
