import type { SchedulingMode } from '../../core/settings/settings.ts';
import { ANTHROPIC_CLEARING_DEFAULTS, type ServerClearingRules } from './server-clearing.ts';

/** How an AI SDK arm manages its loop's history. */
export type SdkArmSetup =
  | { readonly kind: 'unmanaged' }
  /** `pruneMessages` in `prepareStep` on every step, with the settings the SDK's reference shows. */
  | { readonly kind: 'prune'; readonly toolCallsKept: number }
  /**
   * `pruneMessages` with a cut that moves only when the prompt passes `highWater` of the
   * window, then keeps the tool calls of the last `toolCallsKept` messages: between moves
   * every step prunes the same prefix, so the provider's cache keeps hitting.
   */
  | { readonly kind: 'prune-held'; readonly toolCallsKept: number; readonly highWater: number }
  /** The full history sent; the provider clears old tool results by Anthropic's rules. */
  | { readonly kind: 'server-clear'; readonly rules: ServerClearingRules }
  /** pi-fold's `createFolding` (prepareStep and middleware), with `scheduling` when set. */
  | { readonly kind: 'fold'; readonly scheduling?: SchedulingMode };

/**
 * The AI SDK lab's arms, in the order it runs and lists them:
 * - `unmanaged`: nothing; a prompt above the cap ends the arm;
 * - `prune`: `pruneMessages({ reasoning: 'before-last-message', toolCalls: 'before-last-2-messages',
 *   emptyMessages: 'remove' })` each step, as the SDK's `pruneMessages` reference writes it
 *   (ai@6); under ai@7, whose prepareStep keeps what it returns, as the 7.x loop-control guide
 *   writes it instead (sdk-history.ts);
 * - `prune-held`: the same call with a held cut (tuned: moved at half the window, keeping
 *   the calls of the last 8 messages);
 * - `server-clear`: Anthropic's `clear_tool_uses_20250919` at its documented defaults;
 * - `fold`: pi-fold's default policy; `fold-eager`: `scheduling: "eager"`.
 */
export const SDK_ARMS = {
  unmanaged: { kind: 'unmanaged' },
  prune: { kind: 'prune', toolCallsKept: 2 },
  'prune-held': { kind: 'prune-held', toolCallsKept: 8, highWater: 0.5 },
  'server-clear': { kind: 'server-clear', rules: ANTHROPIC_CLEARING_DEFAULTS },
  fold: { kind: 'fold' },
  'fold-eager': { kind: 'fold', scheduling: 'eager' },
} as const satisfies Readonly<Record<string, SdkArmSetup>>;

export type SdkArmName = keyof typeof SDK_ARMS;

export const SDK_ARM_NAMES: readonly SdkArmName[] = Object.freeze(Object.keys(SDK_ARMS) as SdkArmName[]);

export function isSdkArm(name: string): name is SdkArmName {
  return Object.hasOwn(SDK_ARMS, name);
}
