import { join } from 'node:path';
import { assertCostModelOption } from '../../../composition/cost-model-check.ts';
import { type ComposedRuntime, composeFoldRuntime } from '../../../composition/create-fold-runtime.ts';
import { createStoreScope, type StoreScope } from '../../../composition/store-scope.ts';
import type { FoldRuntime, ProjectionResult } from '../../../core/fold-runtime.ts';
import { type FoldSettingsInput, resolveThresholds, type Thresholds } from '../../../core/settings/settings.ts';
import type { CostModel } from '../../../ports/cost-model.port.ts';
import type { EvidenceStore } from '../../../ports/evidence-store.port.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import type { ProjectionSink } from '../../../ports/projection-sink.port.ts';
import type { RequestContext } from '../../../ports/shared-types.ts';
import type { ReadonlySessionManager } from './host-api.ts';
import { InstanceClaims } from './instance-claims.ts';
import { assertLandingOption, type LandingOption, PiLanding, type PiLandingReport } from './landing/pi-landing.ts';
import { PiEntryMapper } from './message-entries.ts';
import { OwnershipMonitor } from './ownership-monitor.ts';
import { PiBranchSource } from './pi-branch-source.ts';
import { type LoadedSettingsFile, loadSettingsFile, settingsFilePath } from './settings-file.ts';

/** Where a session lives, for stores that keep their data beside the session file. */
export interface PiSessionLocation {
  readonly sessionId: string;
  /** Pi's session directory (`ctx.sessionManager.getSessionDir()`). */
  readonly sessionDirectory: string;
  /** False for sessions Pi keeps only in memory (`--no-session`): their folds stay in memory too. */
  readonly persisted: boolean;
}

/** Folder beside Pi's session files where the default stores keep folds and evidence. */
export const STORE_FOLDER = 'pi-fold';

/** Options of `registerPiFold`. Everything has a default; a plain `pi install` needs none. */
export interface PiFoldOptions {
  /**
   * Where folds and engine state live: a store, or a factory called once per session.
   * @default the filesystem store under `<sessionDir>/pi-fold/` (in memory for a session Pi does not persist)
   */
  readonly foldStore?: FoldStore | ((location: PiSessionLocation) => FoldStore);
  /**
   * Where spilled tool results and arguments are kept (docs/behaviour.md B6.2). @default the
   * filesystem evidence store under `<sessionDir>/pi-fold/` (in memory when not persisted)
   */
  readonly evidenceStore?: EvidenceStore | ((location: PiSessionLocation) => EvidenceStore);
  /**
   * Settings in code: providerInputBudget, blacklistAutoFoldTools, scheduling, spill, and optionally
   * thresholds. Thresholds given here win over the settings file's (the file is then not used
   * for thresholds and `/fold-settings` says so); without them the file's apply.
   */
  readonly settings?: FoldSettingsInput;
  /** The settings file. @default `~/.config/pi-fold/settings.json` (or `$PI_FOLD_CONFIG_DIR/settings.json`) */
  readonly settingsPath?: string;
  /** Receives every projection (tests, the lab). */
  readonly projectionSink?: ProjectionSink;
  /**
   * Tokens and prices the commit scheduler decides with: give your provider's price list
   * (`createCharsCostModel({ priceList })`) when it is not one pi-fold knows by model id, or
   * its rates differ. Checked at registration (`SETTINGS.INVALID` names the bad field).
   * @default each request priced by its model id where a known list matches, else the ledger list
   */
  readonly costModel?: CostModel;
  /**
   * When the agent is offered `pi_fold_context` (core/settings/tool-offer.ts): `'always'`, or
   * `'when-needed'`: from the turn after the window first shows a fold, a spill, a notice or a
   * receipt (at once for a session restored with folds). Pi sets a turn's tools when the turn
   * starts, so the tool appears at a turn boundary. The human commands work either way.
   * @default 'always'
   */
  readonly toolOffer?: 'always' | 'when-needed';
  /**
   * Report metrics and spans through `@opentelemetry/api` when it is installed (docs/observability.md).
   * `false` turns it off, and the API is then not loaded at registration either.
   * @default true
   */
  readonly openTelemetry?: boolean;
  /**
   * How commits reach Pi (docs/pi.md, "Landing as context edits"): `'session-edits'` writes
   * each fold into the session as Pi's own context edits, so Pi's projection, `/compact`,
   * `/tree` and export see the folded window; `'context-hook'` sends the window from the
   * `context` event before every request; `'auto'` takes edits on a Pi that has them (0.87 and later).
   * @default 'auto'
   */
  readonly landing?: LandingOption;
}

/** One Pi session's folding: the engine, the message mapper and what the last request produced. */
export interface PiSessionFolding {
  readonly sessionId: string;
  readonly runtime: FoldRuntime;
  readonly mapper: PiEntryMapper;
  readonly evidenceStore: EvidenceStore;
  lastProjection: ProjectionResult | undefined;
  /** The branch the context hook mapped for the request about to go out: what the engine reads. */
  readonly branch: PiBranchSource;
  /** Whether the window pi-fold projects is the one sent, and Pi does not compact on its own. */
  readonly ownership: OwnershipMonitor;
  /** How this session's commits reach Pi, and what the edit path did. */
  readonly landing: PiLandingReport;
  readonly composed: ComposedRuntime;
}

// Key of the scope shared by sessions Pi keeps only in memory (no path can equal it).
const IN_MEMORY_SCOPE = '\0memory';

/** The tool name placeholders tell the model to call. */
export const PI_TOOL_NAME = 'pi_fold_context';

/**
 * Opens one runtime per Pi session on first use and keeps it for the session's life. State
 * is in the fold store, so a session opened again (a restart, `/resume`) continues its folds.
 */
export class PiSessionRegistry {
  private readonly sessions = new Map<string, Promise<PiSessionFolding>>();
  /**
   * The default stores, one scope per store folder (sessions of one project share a session
   * directory, so they share its store) and one in-memory scope for sessions Pi does not
   * persist. The scopes live as long as the registry: closing a session leaves its store open
   * for the next, and an in-memory session reopened finds its folds again.
   */
  private readonly storeScopes = new Map<string, Promise<StoreScope>>();
  settingsFile: LoadedSettingsFile | undefined;
  /** The model Pi last named for each session (session start, model switch), handed to its runtime when it opens. */
  private readonly expectedModels = new Map<string, RequestContext>();

  /** Which sessions this instance folds, against other pi-fold instances in the process. */
  private readonly claims = new InstanceClaims();

  /** Whether this instance folds the session of `sessionManager` (no other pi-fold instance claimed it first). */
  claimSession(sessionManager: object): boolean {
    return this.claims.claim(sessionManager);
  }

  /** Thresholds passed in code, validated at registration; when present the settings file's are not used. */
  readonly codeThresholds: Thresholds | undefined;

  /** `opened` runs once for each session runtime opened (the host event wiring). */
  constructor(
    readonly options: PiFoldOptions,
    private readonly opened: (folding: PiSessionFolding) => void = () => undefined,
  ) {
    // Refused by name here, at registration, rather than on the first request of every session.
    this.codeThresholds =
      options.settings?.thresholds === undefined ? undefined : resolveThresholds(options.settings.thresholds);
    assertCostModelOption(options.costModel, 'registerPiFold');
    assertLandingOption(options.landing);
  }

  get settingsPath(): string {
    return this.options.settingsPath ?? settingsFilePath();
  }

  /** The session's folding, opened on first call. */
  forSession(sessionManager: ReadonlySessionManager): Promise<PiSessionFolding> {
    const sessionId = sessionManager.getSessionId();
    let opening = this.sessions.get(sessionId);
    if (opening === undefined) {
      opening = this.open({
        sessionId,
        sessionDirectory: sessionManager.getSessionDir(),
        persisted: sessionManager.getSessionFile() !== undefined,
      });
      this.sessions.set(sessionId, opening);
      // A failed open must not be cached: the next request tries again and reports again.
      opening.catch(() => this.sessions.delete(sessionId));
    }
    return opening;
  }

  /**
   * Pi named the model a session's next requests go to. The runtime is told at once if it is
   * open, else when it opens: no store is opened for this alone.
   */
  async expectRequests(sessionId: string, context: RequestContext): Promise<void> {
    this.expectedModels.set(sessionId, context);
    const folding = await this.sessions.get(sessionId)?.catch(() => undefined);
    folding?.runtime.expectRequests(context);
  }

  /** The open session, if any, without opening one. */
  async existing(sessionId: string): Promise<PiSessionFolding | undefined> {
    return this.sessions.get(sessionId);
  }

  /** Close a session's runtime (session switch, shutdown, settings change). State stays in the store. */
  async close(sessionId: string): Promise<void> {
    const opening = this.sessions.get(sessionId);
    this.sessions.delete(sessionId);
    if (opening === undefined) return;
    const folding = await opening.catch(() => undefined);
    await folding?.composed.dispose();
  }

  async closeAll(): Promise<void> {
    for (const sessionId of [...this.sessions.keys()]) await this.close(sessionId);
  }

  /** Reload the settings file; open runtimes pick the new thresholds up when reopened. */
  async reloadSettings(): Promise<LoadedSettingsFile> {
    this.settingsFile = await loadSettingsFile(this.settingsPath);
    return this.settingsFile;
  }

  private async open(location: PiSessionLocation): Promise<PiSessionFolding> {
    const file = this.settingsFile ?? (await this.reloadSettings());
    const foldStore = this.resolve(this.options.foldStore, location);
    const evidenceStore = this.resolve(this.options.evidenceStore, location);
    // Whatever the host did not pass comes from the default stores, built by the composition root.
    const scope =
      foldStore === undefined || evidenceStore === undefined ? await this.storeScopeFor(location) : undefined;
    // The host's stores serve every session of this registry: closing one session leaves them open.
    const composed = await composeFoldRuntime(
      {
        sessionId: location.sessionId,
        settings: {
          ...this.options.settings,
          thresholds: this.codeThresholds ?? file.thresholds,
          toolName: PI_TOOL_NAME,
        },
        ...(scope === undefined ? {} : { scope }),
        ...(foldStore === undefined ? {} : { store: foldStore }),
        ...(evidenceStore === undefined ? {} : { evidenceStore }),
        ...(this.options.projectionSink === undefined ? {} : { projectionSink: this.options.projectionSink }),
        ...(this.options.costModel === undefined ? {} : { costModel: this.options.costModel }),
        ...(this.options.openTelemetry === undefined ? {} : { openTelemetry: this.options.openTelemetry }),
      },
      'keep',
    );
    const folding: PiSessionFolding = {
      sessionId: location.sessionId,
      runtime: composed.runtime,
      mapper: new PiEntryMapper(),
      branch: new PiBranchSource(location.sessionId),
      evidenceStore: composed.ports.evidenceStore,
      lastProjection: undefined,
      ownership: new OwnershipMonitor(),
      landing: new PiLanding(this.options.landing ?? 'auto'),
      composed,
    };
    const expected = this.expectedModels.get(location.sessionId);
    if (expected !== undefined) composed.runtime.expectRequests(expected);
    this.opened(folding);
    return folding;
  }

  /**
   * The default stores of a session: the filesystem store in `<sessionDir>/pi-fold/`, or memory
   * when Pi does not persist it.
   */
  private storeScopeFor(location: PiSessionLocation): Promise<StoreScope> {
    const root = location.persisted ? join(location.sessionDirectory, STORE_FOLDER) : undefined;
    const key = root ?? IN_MEMORY_SCOPE;
    let scope = this.storeScopes.get(key);
    if (scope === undefined) {
      scope = createStoreScope(root === undefined ? { store: 'memory' } : { store: 'fs', storeRoot: root });
      this.storeScopes.set(key, scope);
      scope.catch(() => this.storeScopes.delete(key));
    }
    return scope;
  }

  private resolve<T extends object>(
    option: T | ((location: PiSessionLocation) => T) | undefined,
    location: PiSessionLocation,
  ): T | undefined {
    if (option === undefined) return undefined;
    return typeof option === 'function' ? (option as (location: PiSessionLocation) => T)(location) : option;
  }
}
