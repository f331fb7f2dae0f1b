import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { registerPiFold } from './register-pi-fold.ts';

/** The Pi extension entry: `pi install` loads this and every long session folds instead of compacting. */
export default function piFoldExtension(pi: ExtensionAPI): void {
  registerPiFold(pi);
}

export { registerPiFold, type PiFoldRegistration } from './register-pi-fold.ts';
export { PiSessionRegistry, PI_TOOL_NAME, type PiFoldOptions, type PiSessionFolding, type PiSessionLocation } from './session-registry.ts';
export { projectionCandidates, type ProjectionCandidate } from './projection-candidates.ts';
export { PiEntryMapper, canonicalBytes, UNMATCHED_ID_PREFIX } from './message-entries.ts';
export { toPiMessages } from './projected-messages.ts';
export { foldToolParameters } from './fold-tool.ts';
export { loadSettingsFile, settingsFilePath, CONFIG_DIR_ENV } from './settings-file.ts';
export { RECOVERY_SUMMARY_MARK } from './compaction-guard.ts';
export { COMMIT_TELEMETRY_CHANNEL } from './register-pi-fold.ts';
export { OwnershipMonitor, type OwnershipProblem, type OwnershipWarning } from './ownership-monitor.ts';
