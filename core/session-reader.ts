import type { ProjectedMessage } from '../ports/projected-message.ts';
import type { RequestContext } from '../ports/request-context.ts';
import type { SessionState } from './session-state.ts';
import type { SessionView } from './session-view.ts';

/**
 * The read-only face of a session, over its three parts: what `FoldRuntime.view` hands out.
 * Every member reads the part as it stands now (a refused action puts back a memory of its
 * own), and none can be assigned through.
 */
export function sessionView(session: SessionState): SessionView {
  const { ports, model, services } = session;
  return {
    sessionId: ports.sessionId,
    settings: ports.settings,
    foldStore: ports.foldStore,
    index: model.index,
    lattice: model.lattice,
    get memory() {
      return model.memory;
    },
    estimator: services.estimator,
    telemetry: services.telemetry,
    spills: services.spills,
    scheduler: services.scheduler,
    ledger: model.ledger,
    get visibleFolds() {
      return model.visibleFolds;
    },
    get frozen(): ProjectedMessage[] | undefined {
      return session.frozen;
    },
    pendingCauses: model.pendingCauses,
    get forcedCommit() {
      return model.forcedCommit;
    },
    get lastBudget() {
      return model.lastBudget;
    },
    get lastContext() {
      return model.lastContext;
    },
    knownBudget: () => session.knownBudget(),
    budgetTokens: (context?: RequestContext) => session.budgetTokens(context),
    currentTokens: () => session.currentTokens(),
    pendingWindow: () => session.pendingWindow(),
  };
}
