/**
 * The engine's own vocabulary, shared by every port and every host. Each idea has its file;
 * this barrel re-exports them under the one path older imports use. Import from the files:
 * - `transcript-entry.ts`: what a host hands in (`TranscriptEntry`, `EntryRole`, `ToolCallReference`);
 * - `request-context.ts`: what the host knows about the request (`RequestContext`);
 * - `projected-message.ts`: the window's messages (`ProjectedMessage`, `SpillPointer`, `SpilledToolCallArguments`);
 * - `ledger-row.ts`: one row per request (`LedgerRow`, `RewriteCause`);
 * - `fold-warning.ts`: soft problems as coded records (`FoldWarning`, `FoldWarningCode`);
 * - `projection.ts`: what `project` hands out (`Projection`, `ProjectionResult`);
 * - `engine-telemetry.ts`: commits, usage and actions as observers see them (`CommitTelemetry`, …).
 */

export type * from './engine-telemetry.ts';
export type * from './fold-warning.ts';
export type * from './ledger-row.ts';
export type * from './projected-message.ts';
export type * from './projection.ts';
export type * from './request-context.ts';
export type * from './transcript-entry.ts';
