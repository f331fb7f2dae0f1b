import type { PiFoldOptions } from '../../adapters/pi/session-registry.ts';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import type { FoldSettingsInput } from '../../core/settings.ts';

/**
 * `--like-before`: the work d7f14a5 (main before the ports issue's first commit) did per
 * request, on today's engine, so the two can be compared like for like. Everything that landed
 * since as a feature of its own is turned off through its option: the cost scheduler (band, the
 * default then), spill at ingestion (a threshold no 24 KB result reaches), OpenTelemetry (not
 * reported) and the request log (a store that does not declare it). What is left is the
 * engine the ports issue rebuilt: ingest, frontier, render, scheduler, state, sink. d7f14a5
 * also hashed and stored each result over 16 KB as evidence, in its `tool_result` hook (outside
 * the engine and the `context` hook); with spill off this session stores none, so its
 * every-hook line (time-hooks.ts) leaves out work that d7f14a5's includes.
 */
export function likeBeforeArgument(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--like-before');
}

/**
 * The memory store as d7f14a5 had it: one that declares no request log, so none is appended
 * to. A subclass rather than a proxy: a proxy's traps would add to every call the engine makes.
 */
class MemoryStoreWithoutRequestLog extends MemoryFoldStore {
  override readonly capabilities = { verifiesReads: true, shared: false, retention: true, requestLog: false };
}

/** The pi-fold options of one benchmark session: the default product, or the work d7f14a5 did. */
export function benchFoldOptions(likeBefore: boolean, settings: FoldSettingsInput): PiFoldOptions {
  const common = { settingsPath: '/nonexistent/pi-fold/settings.json' };
  if (!likeBefore) return { ...common, foldStore: new MemoryFoldStore(), settings };
  return {
    ...common,
    foldStore: new MemoryStoreWithoutRequestLog(),
    settings: { ...settings, scheduling: 'band', spill: { thresholdBytes: 262_144, keepBytes: 4_096 } },
    openTelemetry: false,
  };
}
