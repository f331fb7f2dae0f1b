/**
 * `pi-fold/internal`: the engine's own helpers, for tools built beside pi-fold (the lab, a store
 * viewer, migration scripts). Not part of the public API: names and signatures here may change
 * in any release. What a host builds on is in `pi-fold` (docs/install.md, "Entry points").
 */

export { sourceDigest } from './commit/plan/planner.ts';
export { FOLD_ID_PATTERN, foldIdFor, foldIdOfSpan, spanSha256 } from './folds/fold-ids.ts';
export { outputReservation, servingBudget } from './pricing/budget.ts';
export { priceRequest } from './pricing/chars-cost-model.ts';
export { sha256Hex, stableStringify, utf8Length } from './util/hashing.ts';
