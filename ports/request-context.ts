/** What a host tells the engine about the request it is preparing. Types only. */

/** What the host knows about the request being prepared. */
export interface RequestContext {
  /** The model's context window in tokens (used when no providerInputBudget is set). */
  readonly contextWindow?: number;
  /** The model this request goes to: picks its budget when `providerInputBudget` is keyed by model. */
  readonly model?: { readonly id?: string; readonly provider?: string };
  /**
   * Chars the host adds around the messages (system prompt, tool schemas), for estimates before the
   * first provider count.
   */
  readonly overheadChars?: number;
  /**
   * When the request is prepared, in milliseconds since the epoch, by the host's clock (core
   * has none, docs/behaviour.md I5). With the price list's cache lifetime it tells a cold cache (B3.3).
   */
  readonly requestTime?: number;
}
