import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { CommitPlan } from '../commit/plan/planner.ts';
import type { PlacedFold } from '../folds/fold-lattice.ts';
import { type FullRender, HIDDEN_ENTRY, type RenderInputs } from '../render/projection-renderer.ts';
import type { SessionServices } from '../session/session-services.ts';
import type { SessionModel } from '../state/session-model.ts';

/** What patching reads: the forest as it stands after the commit, and the renderer. */
interface PatchTarget {
  readonly model: Pick<SessionModel, 'lattice'>;
  readonly services: Pick<SessionServices, 'renderer'>;
  renderInputs(): RenderInputs;
}

/** An entry span [first, last] a landed commit turned into one collapsed fold. */
interface LandedSpan {
  readonly first: number;
  readonly last: number;
}

/**
 * The full render after a commit, made from the full render taken before it: only the spans
 * the commit folded are rendered again. Every other entry renders to the same messages, since
 * a render is a pure function of its inputs (docs/behaviour.md I5) and landing changes no input
 * outside those spans. Returns undefined when a span does not line up with the layout before
 * (it sat behind a fold that stays collapsed, or cut one): the caller then renders in full.
 * Call after `pruneHiddenInserts`, as a full render would.
 */
export function patchLandedSpans(
  target: PatchTarget,
  before: FullRender,
  plan: CommitPlan,
): Omit<FullRender, 'starts'> | undefined {
  const spans = outermostSpans(plan);
  if (!spans.every((span) => linesUp(target, before, span))) return undefined;
  const inputs = target.renderInputs();
  const messages: ProjectedMessage[] = [];
  const visibleFolds: PlacedFold[] = [];
  let copiedUpTo = 0;
  let foldCursor = 0;
  for (const span of spans) {
    const start = before.starts[span.first]!;
    const end = span.last + 1 < before.starts.length ? before.starts[span.last + 1]! : before.messages.length;
    for (let at = copiedUpTo; at < start; at += 1) messages.push(before.messages[at]!);
    while (foldCursor < before.visibleFolds.length && before.visibleFolds[foldCursor]!.first < span.first)
      visibleFolds.push(before.visibleFolds[foldCursor++]!);
    // Folds that were visible inside the span are behind the new one now.
    while (foldCursor < before.visibleFolds.length && before.visibleFolds[foldCursor]!.last <= span.last)
      foldCursor += 1;
    target.services.renderer.renderRange(inputs, span.first, span.last, messages, visibleFolds, true);
    copiedUpTo = end;
  }
  for (let at = copiedUpTo; at < before.messages.length; at += 1) messages.push(before.messages[at]!);
  while (foldCursor < before.visibleFolds.length) visibleFolds.push(before.visibleFolds[foldCursor++]!);
  return { messages, visibleFolds };
}

/** The commit's spans with those inside another dropped, in window order (the forest is laminar). */
function outermostSpans(plan: CommitPlan): LandedSpan[] {
  const sorted = [...plan.folds].sort((a, b) => a.first - b.first || b.last - a.last);
  const spans: LandedSpan[] = [];
  for (const fold of sorted) {
    const previous = spans[spans.length - 1];
    if (previous !== undefined && fold.last <= previous.last) continue;
    spans.push({ first: fold.first, last: fold.last });
  }
  return spans;
}

/**
 * A span can be patched when both its ends were message boundaries before, and it is now
 * one collapsed fold that no other collapsed fold hides.
 */
function linesUp(target: PatchTarget, before: FullRender, span: LandedSpan): boolean {
  if (before.starts[span.first] === HIDDEN_ENTRY) return false;
  if (span.last + 1 < before.starts.length && before.starts[span.last + 1] === HIDDEN_ENTRY) return false;
  const { lattice } = target.model;
  const outermost = lattice.enclosing(span.first).find((placed) => !lattice.expanded.has(placed.record.id));
  return outermost !== undefined && outermost.first === span.first && outermost.last === span.last;
}
