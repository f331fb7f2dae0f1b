import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { isContentCount } from '../../../core/transcript/entry-validation.ts';
import { replaceLoneSurrogates } from '../../../core/transcript/well-formed-text.ts';
import { sha256Hex, stableStringify } from '../../../core/util/hashing.ts';
import type { EntryRole, ToolCallReference, TranscriptEntry } from '../../../ports/transcript-source.port.ts';

/** The transcript of one context event, with the event's own message for every entry id. */
export interface MappedTranscript {
  readonly entries: readonly TranscriptEntry[];
  /** The event's message object behind each entry id (sent back untouched when the entry is shown raw). */
  readonly messages: ReadonlyMap<string, AgentMessage>;
  /** Messages no session entry could vouch for (another extension injected them); kept raw. */
  readonly unmatched: number;
  /**
   * Session entries whose message differs from what an earlier request showed for them (another
   * extension rewrote history).
   */
  readonly rewritten: number;
}

interface CachedEntry {
  readonly entry: TranscriptEntry;
  /** A cheap shape check: a message rewritten by another extension gets a fresh id. */
  readonly fingerprint: string;
}

/** A message whose session entry is known (the edit landing reads them off the branch). */
export interface IdentifiedMessage {
  readonly entryId: string;
  readonly message: AgentMessage;
}

/** Prefix of ids given to messages that match no session entry. */
export const UNMATCHED_ID_PREFIX = 'pi-unmatched:';

/**
 * Maps the messages of Pi's `context` event to entries of the active session branch.
 *
 * The event carries no entry ids and hands over a fresh clone of every message each time,
 * so each message is matched to the branch entry that produced it (role, timestamp and, for
 * results, the call id) and the entry's canonical bytes are computed once per entry id and
 * cached: session entries are immutable, so a request costs only what was appended.
 */
export class PiEntryMapper {
  private readonly cache = new Map<string, CachedEntry>();
  private readonly keysById = new Map<string, string | null>();
  /** The branch entries already keyed, in order, and their ids by key (kept across requests). */
  private readonly keyedBranch: string[] = [];
  private idsByKey = new Map<string, string[]>();
  /** Entries by the message object they were built from: Pi hands the edit landing its own objects, unchanged. */
  private readonly byObject = new WeakMap<object, { readonly entryId: string; readonly entry: TranscriptEntry }>();

  /** The last `mapIdentified` result, reusable when the next call's messages start with the same ones. */
  private lastIdentified:
    | { readonly entries: TranscriptEntry[]; readonly byId: Map<string, AgentMessage>; readonly length: number }
    | undefined;

  /**
   * Maps messages whose entries are known, as the edit landing reads them off Pi's session:
   * no matching by key, and a message object seen before costs one lookup. When the caller
   * knows the first `unchangedPrefix` messages are the previous call's, unchanged, their
   * entries are reused, so a request costs what was appended. A message that differs from
   * what an earlier request showed for its entry (another extension changed it) gets a fresh
   * id, as in `map`.
   */
  mapIdentified(messages: readonly IdentifiedMessage[], unchangedPrefix = 0): MappedTranscript {
    const last = this.lastIdentified;
    const reuse = last !== undefined && unchangedPrefix > 0 && unchangedPrefix <= last.length;
    const entries: TranscriptEntry[] = reuse ? last.entries.slice(0, unchangedPrefix) : [];
    const byId = reuse ? last.byId : new Map<string, AgentMessage>();
    let rewritten = 0;
    for (let index = entries.length; index < messages.length; index += 1) {
      const { entryId, message } = messages[index]!;
      const known = this.byObject.get(message);
      let entry = known !== undefined && known.entryId === entryId ? known.entry : undefined;
      if (entry === undefined) {
        entry = this.cachedEntry(entryId, message);
        if (entry.id === entryId) this.byObject.set(message, { entryId, entry });
      }
      if (entry.id !== entryId) rewritten += 1;
      entries.push(entry);
      byId.set(entry.id, message);
    }
    // Only a call whose messages are all the branch's own can be built on: one with another
    // extension's changes in it is mapped whole next time.
    this.lastIdentified = rewritten === 0 ? { entries, byId, length: entries.length } : undefined;
    return { entries, messages: byId, unmatched: 0, rewritten };
  }

  map(messages: readonly AgentMessage[], branch: readonly SessionEntry[]): MappedTranscript {
    this.keyBranch(branch);
    const idsByKey = this.idsByKey;
    // How many ids of each key this request has used: the key lists themselves stay intact.
    const taken = new Map<string, number>();
    const entries: TranscriptEntry[] = [];
    const byId = new Map<string, AgentMessage>();
    const used = new Set<string>();
    let unmatched = 0;
    let rewritten = 0;
    for (const message of messages) {
      const key = messageKey(message);
      const nth = taken.get(key) ?? 0;
      taken.set(key, nth + 1);
      const entryId = idsByKey.get(key)?.[nth];
      const entry = entryId === undefined ? undefined : this.cachedEntry(entryId, message);
      if (entry !== undefined && entry.id !== entryId) rewritten += 1;
      if (entry !== undefined && !used.has(entry.id)) {
        used.add(entry.id);
        entries.push(entry);
        byId.set(entry.id, message);
        continue;
      }
      unmatched += 1;
      const bytes = canonicalBytes(message);
      const sha256 = sha256Hex(bytes);
      // Identical injected messages still need distinct ids; their order makes them stable.
      let id = `${UNMATCHED_ID_PREFIX}${sha256.slice(0, 24)}`;
      for (let copy = 2; used.has(id); copy += 1) id = `${UNMATCHED_ID_PREFIX}${sha256.slice(0, 24)}:${copy}`;
      used.add(id);
      entries.push(buildEntry(id, message, bytes, sha256, true));
      byId.set(id, message);
    }
    return { entries, messages: byId, unmatched, rewritten };
  }

  /**
   * Bring the key lists up to `branch`. Pi's entries form a tree whose ids are unique, so a
   * branch that still has the last keyed id at the same place extends the keyed one: only
   * what was appended is keyed, and a request costs what it added, not the whole branch.
   * Anything else (a tree navigation, a compaction's new branch) is keyed again from scratch.
   */
  private keyBranch(branch: readonly SessionEntry[]): void {
    const keyed = this.keyedBranch.length;
    const extendsKeyed = keyed > 0 && branch.length >= keyed && branch[keyed - 1]!.id === this.keyedBranch[keyed - 1];
    if (!extendsKeyed) {
      this.keyedBranch.length = 0;
      this.idsByKey = new Map();
    }
    for (let position = this.keyedBranch.length; position < branch.length; position += 1) {
      const entry = branch[position]!;
      this.keyedBranch.push(entry.id);
      const key = this.entryKey(entry);
      if (key === null) continue;
      const ids = this.idsByKey.get(key);
      if (ids === undefined) this.idsByKey.set(key, [entry.id]);
      else ids.push(entry.id);
    }
  }

  /** How many entries have their bytes cached (for the benchmark and tests). */
  get cachedEntries(): number {
    return this.cache.size;
  }

  private entryKey(entry: SessionEntry): string | null {
    let key = this.keysById.get(entry.id);
    if (key === undefined) {
      key = sessionEntryKey(entry);
      this.keysById.set(entry.id, key);
    }
    return key;
  }

  private cachedEntry(entryId: string, message: AgentMessage): TranscriptEntry {
    const fingerprint = shapeOf(message);
    const cached = this.cache.get(entryId);
    if (cached !== undefined && cached.fingerprint === fingerprint) return cached.entry;
    const bytes = canonicalBytes(message);
    const sha256 = sha256Hex(bytes);
    // Same entry, different message: another extension rewrote it. A new id keeps the
    // engine's rule that an id always names the same bytes.
    const id = cached === undefined ? entryId : `${entryId}~${sha256.slice(0, 12)}`;
    const entry = buildEntry(id, message, bytes, sha256, cached !== undefined);
    if (cached === undefined) this.cache.set(entryId, { entry, fingerprint });
    return entry;
  }
}

/** A message's canonical single-line bytes: stable key order, so the same message always hashes the same. */
export function canonicalBytes(message: AgentMessage): string {
  return stableStringify(message);
}

function buildEntry(
  id: string,
  message: AgentMessage,
  bytes: string,
  sha256: string,
  isProtected: boolean,
): TranscriptEntry {
  const role = engineRole(message);
  const base = {
    id,
    role,
    bytes,
    sha256,
    // The bytes are JSON, which escapes a lone surrogate exactly; the text is only read
    // (briefs), so one there becomes U+FFFD rather than refuse the message (docs/behaviour.md I2).
    text: replaceLoneSurrogates(readableText(message)),
    contentChars: countedOrBytes(contentChars(message), bytes),
    ...(isProtected ? { protected: true } : {}),
  };
  if (message.role === 'assistant') {
    const toolCalls: ToolCallReference[] = [];
    for (const block of message.content) {
      if (block.type === 'toolCall')
        toolCalls.push({ id: block.id, name: block.name, argumentsJson: stableStringify(block.arguments ?? {}) });
    }
    return toolCalls.length > 0 ? { ...base, toolCalls } : base;
  }
  if (message.role === 'toolResult') return { ...base, toolCallId: message.toolCallId, toolName: message.toolName };
  return base;
}

// Pi's extra message kinds (custom, summaries, bash runs) reach the model as user messages.
function engineRole(message: AgentMessage): EntryRole {
  if (message.role === 'assistant' || message.role === 'toolResult') return message.role;
  return 'user';
}

/**
 * The engine refuses an entry whose count it cannot take (`isContentCount`). A message of a
 * shape Pi's types do not foresee (a text block whose text is not a string, from another
 * extension) counts as its bytes instead: the floor then holds at least as much, never less.
 */
function countedOrBytes(counted: number, bytes: string): number {
  return isContentCount(counted) ? counted : bytes.length;
}

/** Image blocks count as this many chars, as in Pi's own estimate (1,200 tokens). */
const IMAGE_CHARS = 4800;

/**
 * Chars of the message as Pi's `estimateTokens` counts them (compaction's keepRecentTokens is
 * measured so), so the floor keeps at least what Pi's native compaction would keep.
 */
export function contentChars(message: AgentMessage): number {
  switch (message.role) {
    case 'user':
      return typeof message.content === 'string' ? message.content.length : blocksChars(message.content, 0);
    case 'assistant': {
      let chars = 0;
      for (const block of message.content) {
        if (block.type === 'text') chars += block.text.length;
        else if (block.type === 'thinking') chars += block.thinking.length;
        else if (block.type === 'toolCall') chars += block.name.length + (JSON.stringify(block.arguments) ?? '').length;
      }
      return chars;
    }
    case 'toolResult':
    case 'custom':
      return typeof message.content === 'string' ? message.content.length : blocksChars(message.content, IMAGE_CHARS);
    case 'bashExecution':
      return message.command.length + message.output.length;
    case 'branchSummary':
    case 'compactionSummary':
      return message.summary.length;
    default:
      return 0;
  }
}

function blocksChars(blocks: readonly { type: string; text?: string }[], imageChars: number): number {
  let chars = 0;
  for (const block of blocks)
    chars += block.type === 'text' ? (block.text ?? '').length : block.type === 'image' ? imageChars : 0;
  return chars;
}

/**
 * Text for deterministic briefs: text blocks joined. An assistant's tool calls are not
 * named here: the entry carries them as `toolCalls`, and the briefs already list them, so
 * naming them again would only spend the window's tokens on a second copy.
 */
export function readableText(message: AgentMessage): string {
  switch (message.role) {
    case 'user':
    case 'custom':
      return typeof message.content === 'string' ? message.content : blocksText(message.content);
    case 'assistant':
      return message.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .filter((text) => text.length > 0)
        .join('\n');
    case 'toolResult':
      return blocksText(message.content);
    case 'bashExecution':
      return `$ ${message.command}\n${message.output}`;
    case 'branchSummary':
    case 'compactionSummary':
      return message.summary;
    default:
      return '';
  }
}

function blocksText(blocks: readonly { type: string; text?: string }[]): string {
  return blocks.map((block) => (block.type === 'text' ? (block.text ?? '') : `[${block.type}]`)).join('\n');
}

/** The key a context message shares with the session entry that produced it. */
function messageKey(message: AgentMessage): string {
  const extra = message.role === 'toolResult' ? message.toolCallId : '';
  return `${message.role}|${message.timestamp}|${extra}`;
}

function sessionEntryKey(entry: SessionEntry): string | null {
  switch (entry.type) {
    case 'message':
      return messageKey(entry.message);
    case 'custom_message':
      return `custom|${new Date(entry.timestamp).getTime()}|`;
    case 'branch_summary':
      return `branchSummary|${new Date(entry.timestamp).getTime()}|`;
    case 'compaction':
      return `compactionSummary|${new Date(entry.timestamp).getTime()}|`;
    default:
      return null;
  }
}

function shapeOf(message: AgentMessage): string {
  const content = 'content' in message ? message.content : undefined;
  if (typeof content === 'string') return `s${content.length}`;
  if (!Array.isArray(content)) return 'none';
  let chars = 0;
  for (const block of content as unknown as readonly Record<string, unknown>[]) {
    const text = block.text ?? block.thinking ?? block.data;
    if (typeof text === 'string') chars += text.length;
    else if (block.arguments !== undefined) chars += 1;
  }
  return `${content.length}:${chars}`;
}
