import type { SessionView } from '../../../core/session/session-view.ts';
import { PI_TOOL_NAME } from './session-registry.ts';

/** One record per visible collapsed fold (docs/behaviour.md B6.5), with the field names and values of the 3.x table. */
export interface ProjectionCandidate {
  readonly version: 1;
  readonly key: string;
  readonly kind: 'projection';
  readonly domain: 'system';
  readonly horizon: 'working';
  readonly source_id: string;
  readonly source_version: string;
  readonly route: {
    readonly tool: typeof PI_TOOL_NAME;
    readonly arguments: { readonly action: 'expand'; readonly id: string };
  };
  readonly token_cost: number;
  readonly expansion_cost: number;
  readonly rank: number;
  readonly score: number;
  readonly raw_score: number;
  readonly confidence: 'exact';
  readonly freshness: 'current';
  readonly locked_owner: false;
  readonly collapse_key: string;
  readonly generator: 'projection-model' | 'projection-deterministic' | 'projection-supplied';
  readonly generator_version: 'memory-slate-generators-v2';
  readonly recency: null;
}

/**
 * Candidates from the window as last projected: a fold counts when it is collapsed in that
 * window. The replacement cost is what the fold's placeholder and stubs occupy there.
 */
export function projectionCandidates(runtime: SessionView): ProjectionCandidate[] {
  const replacementChars = new Map<string, number>();
  for (const message of runtime.frozen ?? []) {
    if (message.kind === 'entry' || message.kind === 'spilled' || message.foldId === undefined) continue;
    if (message.kind === 'synthetic' && message.origin !== 'placeholder') continue;
    replacementChars.set(message.foldId, (replacementChars.get(message.foldId) ?? 0) + message.bytes.length);
  }
  const candidates: ProjectionCandidate[] = [];
  for (const placed of runtime.visibleFolds) {
    const record = placed.record;
    const replacement = replacementChars.get(record.id);
    if (replacement === undefined) continue;
    const saved = Math.max(0, record.sourceChars - replacement);
    const key = `projection:${record.id}`;
    candidates.push({
      version: 1,
      key,
      kind: 'projection',
      domain: 'system',
      horizon: 'working',
      source_id: record.id,
      source_version: record.sourceSha256,
      route: { tool: PI_TOOL_NAME, arguments: { action: 'expand', id: record.id } },
      token_cost: Math.max(1, Math.ceil(runtime.estimator.tokensForChars(replacement))),
      expansion_cost: Math.max(1, Math.ceil(runtime.estimator.tokensForChars(record.sourceChars))),
      rank: candidates.length,
      score: record.sourceChars === 0 ? 0 : Math.min(1, saved / record.sourceChars),
      raw_score: saved,
      confidence: 'exact',
      freshness: 'current',
      locked_owner: false,
      collapse_key: key,
      generator: record.provenance === 'supplied' ? 'projection-supplied' : 'projection-deterministic',
      generator_version: 'memory-slate-generators-v2',
      recency: null,
    });
  }
  return candidates;
}
