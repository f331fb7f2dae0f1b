import type { TranscriptAnchorV1 } from '../../ports/fold-records.ts';
import type { FoldWarning } from '../../ports/fold-warning.ts';
import type { FoldLattice } from '../folds/fold-lattice.ts';
import type { EngineMemory } from '../state/engine-memory.ts';
import type { TranscriptIndex } from '../transcript/transcript-index.ts';

/**
 * Is the conversation a host hands a reopened session the one its state was made from?
 * Within one process the index sees every change; a new process starts from an empty index,
 * so it compares the branch with what the store remembers: the first entry of the branch
 * last projected, and the exact bytes every stored fold was made from.
 */

/** Why the handed-over conversation is not the stored one. */
export interface ConversationMismatch {
  readonly firstEntryDiffers: boolean;
  /** Stored folds whose entry ids are on the branch with other bytes (kept in the store, not shown). */
  readonly mismatchedFoldIds: readonly string[];
}

/** Compare the branch just ingested with the stored state; `undefined` when it is the same conversation. */
export function checkRestoredConversation(
  index: TranscriptIndex,
  lattice: FoldLattice,
  anchor: TranscriptAnchorV1 | undefined,
): ConversationMismatch | undefined {
  const first = index.entries[0];
  const firstEntryDiffers =
    anchor !== undefined && first !== undefined && (first.id !== anchor.entryId || index.shas[0] !== anchor.sha256);
  const mismatchedFoldIds = [...lattice.mismatched].sort();
  if (!firstEntryDiffers && mismatchedFoldIds.length === 0) return undefined;
  return { firstEntryDiffers, mismatchedFoldIds };
}

/** The coded warning a host shows once (Pi: a notice; AI SDK: `onWarning`). */
export function conversationMismatchWarning(sessionId: string, mismatch: ConversationMismatch): FoldWarning {
  const what = mismatch.firstEntryDiffers
    ? 'its first message differs from the stored conversation'
    : `${mismatch.mismatchedFoldIds.length} stored fold(s) cover entries whose bytes differ`;
  const folds =
    mismatch.mismatchedFoldIds.length === 0
      ? ''
      : ` Folds not shown: ${mismatch.mismatchedFoldIds.slice(0, 5).join(', ')}${mismatch.mismatchedFoldIds.length > 5 ? ', …' : ''}.`;
  const message = `pi-fold [TRANSCRIPT.SESSION_MISMATCH]: the conversation handed over under session ${sessionId} is not the one stored (${what}): another conversation may reuse this session id. It is treated as a rewritten transcript; stored folds are kept unchanged and only shown over the exact bytes they were made from.${folds}`;
  return {
    code: 'TRANSCRIPT.SESSION_MISMATCH',
    message,
    details: {
      sessionId,
      firstEntryDiffers: mismatch.firstEntryDiffers,
      mismatchedFolds: mismatch.mismatchedFoldIds.length,
    },
  };
}

/** Remember the branch's first entry; true when that changed what the state holds. */
export function updateTranscriptAnchor(memory: EngineMemory, index: TranscriptIndex): boolean {
  const first = index.entries[0];
  if (first === undefined) return false;
  const current = memory.transcriptAnchor;
  if (current !== undefined && current.entryId === first.id && current.sha256 === index.shas[0]) return false;
  memory.anchorTranscript({ entryId: first.id, sha256: index.shas[0]! });
  return true;
}
