import type { ImageContent, TextContent } from '@mariozechner/pi-ai';
import { FoldError } from '../../core/fold-error.ts';
import { stableStringify, utf8Length } from '../../core/hashing.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';

/** Results above this many UTF-8 bytes are kept as evidence. */
export const DEFAULT_EVIDENCE_THRESHOLD_BYTES = 16 * 1024;

/** How the reference line starts, so tests and people can find it. */
export const EVIDENCE_LINE_MARK = '[pi-fold evidence]';

/**
 * B6.2: an oversized tool result is also written as an immutable, content-addressed
 * artifact, and the result carries one reference line (uri, sha256, bytes) so the exact
 * output can be found again even outside the window. A text-only result is stored as its
 * text; anything else as the canonical JSON of its content.
 *
 * A refused write (the session's evidence cap) is returned as a warning; the result is
 * left exactly as the tool produced it.
 */
export async function ingestEvidence(input: {
  readonly store: EvidenceStore;
  readonly sessionId: string;
  readonly content: readonly (TextContent | ImageContent)[];
  readonly thresholdBytes: number;
}): Promise<{ result?: { content: (TextContent | ImageContent)[] }; warning?: string }> {
  const textOnly = input.content.every((block) => block.type === 'text');
  const payload = textOnly ? input.content.map((block) => (block as TextContent).text).join('\n') : stableStringify(input.content);
  if (utf8Length(payload) <= input.thresholdBytes) return {};
  try {
    const reference = await input.store.put(input.sessionId, payload, textOnly ? 'text/plain' : 'application/json');
    const line = `${EVIDENCE_LINE_MARK} exact output stored: ${reference.uri} sha256=${reference.sha256} bytes=${reference.bytes}`;
    return { result: { content: [...input.content, { type: 'text', text: line }] } };
  } catch (error) {
    if (FoldError.isInstance(error) && error.code.startsWith('STORE.')) return { warning: `pi-fold: evidence not stored (${error.message}); the result is unchanged` };
    throw error;
  }
}
