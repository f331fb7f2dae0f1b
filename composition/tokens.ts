import type { InjectionToken } from 'tsyringe';
import type { FoldSettings } from '../core/settings/settings.ts';
import type { CostModel } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import type { PortOwner } from './port-owner.ts';

/** Injection tokens: symbols, so two copies of the package never collide on a string. */

/** The session's fold store as the engine sees it: the backing store behind the session's size caps. */
export const FOLD_STORE: InjectionToken<FoldStore> = Symbol('pi-fold.FoldStore');
/** The store as chosen or built, before the session's caps; a store scope shares it among its sessions. */
export const BACKING_FOLD_STORE: InjectionToken<FoldStore> = Symbol('pi-fold.BackingFoldStore');
export const EVIDENCE_STORE: InjectionToken<EvidenceStore> = Symbol('pi-fold.EvidenceStore');
export const COST_MODEL: InjectionToken<CostModel> = Symbol('pi-fold.CostModel');
export const PROJECTION_SINK: InjectionToken<ProjectionSink> = Symbol('pi-fold.ProjectionSink');
export const FOLD_SETTINGS: InjectionToken<FoldSettings> = Symbol('pi-fold.FoldSettings');
export const SESSION_ID: InjectionToken<string> = Symbol('pi-fold.SessionId');
/** The adapters one container built and closes with it (see `PortOwner`). */
export const PORT_OWNER: InjectionToken<PortOwner> = Symbol('pi-fold.PortOwner');
