/** The messages of a projection, in a host-neutral form, and where spilled bytes are kept. Types only. */

/** One message of a projection, in a host-neutral form. */
export type ProjectedMessage =
  | {
      /** A transcript entry shown as the host had it. */
      readonly kind: 'entry';
      readonly entryId: string;
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /** Text the runtime writes as a user-role message: a fold placeholder, a notice or a receipt. */
      readonly kind: 'synthetic';
      readonly origin: 'placeholder' | 'notice' | 'receipt';
      readonly foldId?: string;
      readonly text: string;
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /**
       * A tool result or an assistant entry with an oversized part spilled to evidence at
       * ingestion (docs/behaviour.md B6.2): the host sends its own message with those parts replaced by the
       * window form here (head, pointer, tail). The transcript itself is never edited.
       */
      readonly kind: 'spilled';
      readonly entryId: string;
      readonly role: 'toolResult' | 'assistant';
      /** toolResult: the call it answers. */
      readonly toolCallId?: string;
      /** toolResult: the text shown in place of the result's text (non-text parts stay as they are). */
      readonly resultText?: string;
      /** assistant: the calls whose arguments were spilled, with the arguments (stable JSON) shown instead. */
      readonly toolCallArguments?: readonly SpilledToolCallArguments[];
      /** The exact artifacts behind the window form, in order. */
      readonly spills: readonly SpillPointer[];
      /** A neutral serialisation of the window form (its size is what the window carries). */
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /** A tool result shown as a short stub, so the call keeps its result (pairing survives). */
      readonly kind: 'stub';
      readonly origin: 'fold-stub' | 'peek-stub';
      readonly entryId: string;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly foldId: string;
      readonly text: string;
      readonly bytes: string;
      readonly digest: string;
    };

/** Where the exact bytes of one spilled item are kept: what `peek` and `search` read and verify. */
export interface SpillPointer {
  /** `sp_` + the first 20 hex chars of `sha256`: peekable like a fold id. */
  readonly id: string;
  /** SHA-256 (hex) of the item's exact UTF-8 bytes. */
  readonly sha256: string;
  /** Size of the item in UTF-8 bytes. */
  readonly bytes: number;
  /** Bytes of the item's start the window keeps. */
  readonly headBytes: number;
  /** Bytes of the item's end the window keeps. */
  readonly tailBytes: number;
}

/** One tool call whose arguments are shown with spilled values. */
export interface SpilledToolCallArguments {
  readonly toolCallId: string;
  /** The arguments as stable JSON, oversized values replaced by their window form. */
  readonly argumentsJson: string;
}
