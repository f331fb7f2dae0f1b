/**
 * `pi-fold/internal`: the engine's own helpers, for tools built beside pi-fold (the lab, a store
 * viewer, migration scripts). Not part of the public API: names and signatures here may change
 * in any release. What a host builds on is in `pi-fold` (docs/install.md, "Entry points").
 */

export { outputReservation, servingBudget } from './budget.ts';
export { priceRequest } from './chars-cost-model.ts';
export { sourceDigest } from './commit/plan/planner.ts';
export { FOLD_ID_PATTERN, foldIdFor, foldIdOfSpan, spanSha256 } from './fold-ids.ts';
export { sha256Hex, stableStringify, utf8Length } from './hashing.ts';
