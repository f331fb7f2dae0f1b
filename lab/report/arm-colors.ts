/** Arms that measure something other than a policy: their size would set the scale for everyone. */
export const REFERENCE_ARMS: ReadonlySet<string> = new Set(['oracle', 'unmanaged']);

/** The arms every report names, each in one colour on every chart: fold is always blue, native always grey. */
const FIXED: Readonly<Record<string, string>> = {
  fold: '#2563eb',
  'fold-hook': '#60a5fa',
  native: '#6b7280',
  unmanaged: '#9333ea',
  oracle: '#0891b2',
  'fold-band': '#16a34a',
  'fold-immediate': '#ea580c',
  'fold-eager': '#be185d',
};
const OTHERS = ['#dc2626', '#4d7c0f', '#a16207', '#0f766e', '#7c3aed'];

/** An arm's colour: fixed for the arms of the registry, otherwise by its place among the other arms. */
export function armColor(arm: string, position: number): string {
  return FIXED[arm] ?? OTHERS[position % OTHERS.length]!;
}

/** The colours of the parts of a stacked bar (not arms). */
export const PART_PALETTE = [
  '#2563eb',
  '#dc2626',
  '#16a34a',
  '#9333ea',
  '#ea580c',
  '#0891b2',
  '#be185d',
  '#4d7c0f',
  '#6b7280',
];
