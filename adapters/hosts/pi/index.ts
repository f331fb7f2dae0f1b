import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { registerPiFold } from './register-pi-fold.ts';

/** The Pi extension entry: `pi install` loads this and every long session folds instead of compacting. */
export default function piFoldExtension(pi: ExtensionAPI): void {
  registerPiFold(pi);
}

export type { ReadonlySessionManager } from './host-api.ts';
// The mapper is reachable through `PiSessionFolding.mapper`, so its type is named here; building one is internal.
export type { LandingCounters, LandingOption, LandingStrategy, PiLandingReport } from './landing/pi-landing.ts';
export type { IdentifiedMessage, MappedTranscript, PiEntryMapper } from './message-entries.ts';
export { OwnershipMonitor, type OwnershipProblem, type OwnershipWarning } from './ownership-monitor.ts';
export type { PiBranchSource } from './pi-branch-source.ts';
export { type ProjectionCandidate, projectionCandidates } from './projection-candidates.ts';
export { COMMIT_TELEMETRY_CHANNEL, type PiFoldRegistration, registerPiFold } from './register-pi-fold.ts';
export {
  PI_TOOL_NAME,
  type PiFoldOptions,
  type PiSessionFolding,
  type PiSessionLocation,
  PiSessionRegistry,
} from './session-registry.ts';
export { CONFIG_DIR_ENV, type LoadedSettingsFile, loadSettingsFile, settingsFilePath } from './settings-file.ts';
