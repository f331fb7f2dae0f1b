import type { ModelMessage, ToolResultPart } from 'ai';
import { stableStringify } from '../../../core/util/hashing.ts';

/**
 * Canonical, single-line bytes for AI SDK messages. These bytes are what a fold stores and
 * what `peek` shows, so they must keep every fact of the message: binary data and URLs are
 * spelled out instead of being lost by a plain JSON walk.
 */

/** A message's canonical bytes (stable key order, no raw newline). */
export function canonicalBytes(value: unknown): string {
  return stableStringify(plainValue(value));
}

// stableStringify sorts keys of plain objects; URL and binary values need a JSON-able form first.
function plainValue(value: unknown): unknown {
  if (value instanceof URL) return { url: value.href };
  if (value instanceof Uint8Array) return { base64: Buffer.from(value).toString('base64') };
  if (value instanceof ArrayBuffer) return { base64: Buffer.from(new Uint8Array(value)).toString('base64') };
  if (Array.isArray(value)) return value.map(plainValue);
  if (value === null || typeof value !== 'object') return value;
  const plain: Record<string, unknown> = {};
  for (const [key, member] of Object.entries(value)) plain[key] = plainValue(member);
  return plain;
}

/** The readable text of a message (text parts joined), used for deterministic briefs. */
export function messageText(message: ModelMessage): string {
  if (typeof message.content === 'string') return message.content;
  const texts: string[] = [];
  for (const part of message.content) {
    if (part.type === 'text') texts.push(part.text);
    else if (part.type === 'tool-result') texts.push(toolOutputText(part));
  }
  return texts.join('\n');
}

/** The readable text of one tool result's output. */
export function toolOutputText(part: ToolResultPart): string {
  const output = part.output;
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return `execution denied${output.reason === undefined ? '' : `: ${output.reason}`}`;
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n');
    default:
      return canonicalBytes(output);
  }
}
