import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';
import type { ProjectedMessage } from '../../../ports/projection-sink.port.ts';
import {
  BranchSystemIndex,
  type BranchSystemMessages,
  type BranchWalk,
  isSystem,
  type PlacedSystemMessage,
  type SystemMessage,
} from './branch-system-messages.ts';
import { UNMATCHED_ID_PREFIX } from './message-entries.ts';

/**
 * pi-ai's `getCurrentSystemMessage` (Pi >= 0.8x): every system message replayed in order into
 * the one leading message a provider without mid-conversation system messages gets.
 */
export type SystemMessageReplay = (messages: readonly unknown[]) => unknown;

/**
 * Keeps Pi's own system messages on the wire as Pi wrote them (docs/behaviour.md I1).
 *
 * From 0.8x on, Pi keeps its system prompt (named `sections`) and the tool set
 * (`toolsAdded`/`toolsRemoved`) as `system` messages in the transcript, and hides them from
 * `context` handlers. When a handler hands back a conversation that differs from the one it
 * got, as pi-fold's does once it folds or adds a notice, Pi drops them all and puts one head
 * in front that it rebuilds by replay (`getCurrentSystemMessage`): its keys come in another
 * order than the stored message's (`toolsAdded` before `timestamp`) and it absorbs every later
 * system message. The first message's bytes change, so the provider reads the whole window
 * again, and changes again whenever the tool set does.
 *
 * In `context_with_system` (which runs after every `context` handler), pi-fold swaps that head
 * back for the session's own system messages, each placed after the last conversation message
 * that preceded it in the session. Only when the session's messages replay to exactly the head
 * Pi built: the prompt and tools that go out are always Pi's, only their bytes and places are kept.
 */
export class PiSystemMessages {
  /** The branch entry each message pi-fold returned stands for (object identity survives Pi's hand-over). */
  private readonly entryOf = new WeakMap<object, string>();
  private readonly branchIndex = new BranchSystemIndex();
  /** The last replay, kept while the session's system messages are the same objects (entries never change). */
  private replayCache: { readonly messages: readonly SystemMessage[]; readonly json: string } | undefined;

  /** The context hook returned `messages`, one per projected message of the engine. */
  remember(messages: readonly AgentMessage[], projected: readonly ProjectedMessage[]): void {
    messages.forEach((message, index) => {
      const source = projected[index];
      if (source === undefined || source.kind === 'synthetic' || source.entryId.startsWith(UNMATCHED_ID_PREFIX)) return;
      // A rewritten entry's id carries a digest suffix; its place is the session entry's.
      this.entryOf.set(message, source.entryId.split('~')[0]!);
    });
  }

  /**
   * The messages to send instead of `messages` (the `context_with_system` event's), or
   * undefined to send them as they are: Pi's own system messages are already there, or the
   * session's cannot be shown to replay to the head Pi built.
   */
  restore(
    messages: readonly AgentMessage[],
    branch: BranchWalk,
    replay: SystemMessageReplay,
  ): AgentMessage[] | undefined {
    const head = messages[0] as unknown as SystemMessage | undefined;
    if (head?.role !== 'system' || messages.slice(1).some((message) => isSystem(message))) return undefined;
    const session = this.branchIndex.read(branch);
    if (session.placed.length === 0) return undefined;
    const headJson = JSON.stringify(head);
    if (session.placed.length === 1 && JSON.stringify(session.placed[0]!.message) === headJson) return undefined;
    if (
      this.replayed(
        session.placed.map(({ message }) => message),
        replay,
      ) !== headJson
    )
      return undefined;
    const restored = this.interleave(messages.slice(1), session);
    // Pi needs a system message first. A session whose first system message came after some
    // history (one started on a Pi without them, resumed on one with them) keeps Pi's head.
    return restored[0] !== undefined && isSystem(restored[0]) ? restored : undefined;
  }

  private replayed(messages: readonly SystemMessage[], replay: SystemMessageReplay): string {
    const cached = this.replayCache;
    if (
      cached !== undefined &&
      cached.messages.length === messages.length &&
      cached.messages.every((message, index) => message === messages[index])
    )
      return cached.json;
    const json = JSON.stringify(replay(messages));
    this.replayCache = { messages, json };
    return json;
  }

  /**
   * Each system message goes right after the last conversation message that came before it in
   * the session (so the leading ones lead, ahead of any placeholder), keeping their order.
   */
  private interleave(conversation: readonly AgentMessage[], session: BranchSystemMessages): AgentMessage[] {
    const { placed } = session;
    // after[j]: the last conversation index before placed[j], found as a prefix maximum over
    // "index i precedes every system message from the first one placed after it on".
    const after = new Array<number>(placed.length).fill(-1);
    conversation.forEach((message, index) => {
      const entryId = this.entryOf.get(message);
      const position = entryId === undefined ? undefined : session.positionById.get(entryId);
      if (position === undefined) return;
      const first = firstPlacedAfter(placed, position);
      if (first < placed.length) after[first] = Math.max(after[first]!, index);
    });
    for (let j = 1; j < after.length; j += 1) after[j] = Math.max(after[j]!, after[j - 1]!);
    const out: AgentMessage[] = [];
    let next = 0;
    const placeThrough = (index: number) => {
      // Pi's messages are handed over as copies, as Pi hands its own to every handler.
      for (; next < placed.length && after[next] === index; next += 1)
        out.push(structuredClone(placed[next]!.message) as unknown as AgentMessage);
    };
    placeThrough(-1);
    conversation.forEach((message, index) => {
      out.push(message);
      placeThrough(index);
    });
    return out;
  }
}

/** Subscribe to `context_with_system` where the host has it; Pi 0.73's types (and runner) do not know its name. */
export function onContextWithSystem(
  pi: ExtensionAPI,
  handler: (event: { readonly messages: AgentMessage[] }, ctx: ExtensionContext) => Promise<AgentMessage[] | undefined>,
): void {
  const on = pi.on as unknown as (
    event: string,
    listener: (
      event: { readonly messages: AgentMessage[] },
      ctx: ExtensionContext,
    ) => Promise<{ messages: AgentMessage[] } | undefined>,
  ) => void;
  on.call(pi, 'context_with_system', async (event, ctx) => {
    const messages = await handler(event, ctx);
    return messages === undefined ? undefined : { messages };
  });
}

/** The first of `placed` (ordered by position) whose position is above `position`. */
function firstPlacedAfter(placed: readonly PlacedSystemMessage[], position: number): number {
  let low = 0;
  let high = placed.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (placed[middle]!.position > position) high = middle;
    else low = middle + 1;
  }
  return low;
}
