/**
 * `pi-fold/pi/internal`: the Pi adapter's mappers and markers, for tools that read Pi sessions
 * the way pi-fold does (the lab, replays). Not part of the public API: they may change in any
 * release. A Pi host uses `pi-fold/pi` (`registerPiFold`).
 */

export { RECOVERY_SUMMARY_MARK } from './compaction-guard.ts';
export { foldToolParameters } from './fold-tool.ts';
export {
  canonicalBytes,
  type MappedTranscript,
  PiEntryMapper,
  readableText,
  UNMATCHED_ID_PREFIX,
} from './message-entries.ts';
export { toPiMessages } from './projected-messages.ts';
