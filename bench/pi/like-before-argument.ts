import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { PiFoldOptions } from '../../adapters/hosts/pi/session-registry.ts';
import type { FoldSettingsInput } from '../../core/settings/settings.ts';

/**
 * `--like-before`: the engine's core work per request alone, with each feature that has an
 * option of its own turned off through it: band scheduling instead of the cost scheduler, no
 * spill at ingestion (a threshold no benchmark result reaches), no OpenTelemetry and no request
 * log (a store that does not declare it). What is left is ingest, frontier, render, scheduler,
 * state and sink, so an older build that had only those can be timed beside this one like for
 * like (docs/benchmarks/pi-adapter.md names the build and dates each comparison). With spill off
 * this session stores no evidence, so its every-hook line (time-hooks.ts) leaves out evidence
 * work a build that stored it in another hook would include.
 */
export function likeBeforeArgument(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--like-before');
}

/**
 * A memory store that declares no request log, so none is appended
 * to. A subclass rather than a proxy: a proxy's traps would add to every call the engine makes.
 */
class MemoryStoreWithoutRequestLog extends MemoryFoldStore {
  override readonly capabilities = { verifiesReads: true, shared: false, retention: true, requestLog: false };
}

/** The pi-fold options of one benchmark session: the default product, or the core work alone. */
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
