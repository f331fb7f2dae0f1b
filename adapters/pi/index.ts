import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { registerPiFold } from './register-pi-fold.ts';

/** The Pi extension entry: `pi install` loads this and every long session folds instead of compacting. */
export default function piFoldExtension(pi: ExtensionAPI): void {
  registerPiFold(pi);
}

export { registerPiFold, type PiFoldRegistration } from './register-pi-fold.ts';
export { PiSessionRegistry, PI_TOOL_NAME, type PiFoldOptions, type PiSessionFolding, type PiSessionLocation, type ReadonlySessionManager } from './session-registry.ts';
export { projectionCandidates, type ProjectionCandidate } from './projection-candidates.ts';
// The mapper is reachable through `PiSessionFolding.mapper`, so its type is named here; building one is internal.
export type { PiEntryMapper, MappedTranscript } from './message-entries.ts';
export type { PiBranchSource } from './pi-branch-source.ts';
export { loadSettingsFile, settingsFilePath, CONFIG_DIR_ENV, type LoadedSettingsFile } from './settings-file.ts';
export { COMMIT_TELEMETRY_CHANNEL } from './register-pi-fold.ts';
export { OwnershipMonitor, type OwnershipProblem, type OwnershipWarning } from './ownership-monitor.ts';
