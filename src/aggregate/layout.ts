// Each group's vector (docs/aggregates.md, "One vector per group"): the measures an engine
// computes per group (a count, clipped sums, bin counts), and the blocks of coordinates that are
// noised, each with what one row can move it by in one group.
import type { BoundedColumn, Spec } from './spec.js';

/** What an engine computes per group, after clipping and contribution bounding. */
export type Measure =
  /** The number of rows. */
  | { readonly kind: 'count' }
  /** The sum of clip(x, lower, upper) - shift (with `found`, bounds found privately: the widest candidate until then). */
  | { readonly kind: 'sum'; readonly column: string; readonly lower: number; readonly upper: number; readonly shift: number; readonly found?: true }
  /**
   * The sum of (clip(x, lower, upper) - shift)^2 - r^2 / 2, shift the midpoint and r half the
   * range: each term in [-r^2/2, r^2/2] (a variance's, docs/aggregates.md, "Variances").
   */
  | { readonly kind: 'squares'; readonly column: string; readonly lower: number; readonly upper: number; readonly shift: number; readonly found?: true }
  /** Counts of clip(x) per bin: bin k holds edges[k] <= x < edges[k + 1] (the last bin includes its upper edge). */
  | { readonly kind: 'bins'; readonly column: string; readonly edges: readonly number[] }
  /** Counts of clip(x) per leaf of the quantile tree: LEAVES equal cells of [lower, upper]. */
  | { readonly kind: 'leaves'; readonly column: string; readonly lower: number; readonly upper: number }
  /** The number of values outside [lower, upper] (clipped). */
  | { readonly kind: 'clipped'; readonly column: string; readonly lower: number; readonly upper: number; readonly found?: true }
  /** The number of units with a kept row (for partition selection): one unit adds 1, however many rows it has. */
  | { readonly kind: 'units' }
  /** The number of kept invalid rows (with a unit), dropped from every other measure (`invalid: 'drop'` with diagnostics). */
  | { readonly kind: 'dropped' };

/** The quantile tree: BRANCHING children per node, DEPTH levels below the root. */
export const BRANCHING = 16;
export const DEPTH = 3;
export const LEAVES = BRANCHING ** DEPTH;

/**
 * How quantiles are released: 'tree', read off the noisy tree; or 'exponential', each chosen by
 * the exponential mechanism, the tree's top INTERVAL_DEPTH levels noised for its interval alone.
 */
export type QuantileMethod = 'tree' | 'exponential';
export const INTERVAL_DEPTH = 1;

/** What one row adds to a sum or squares measure at most: |clip(x) - shift|, or r^2 / 2 for squares. */
export function perRowOf(m: Measure & { kind: 'sum' | 'squares' }): number {
  const r = Math.max(Math.abs(m.lower - m.shift), Math.abs(m.upper - m.shift));
  return m.kind === 'sum' ? r : (r * r) / 2;
}

/** The number of cells a measure has per group. */
export function cellsOf(m: Measure): number {
  return m.kind === 'bins' ? m.edges.length - 1 : m.kind === 'leaves' ? LEAVES : 1;
}

/** A block of the noised vector: one quantity over every group (and cell). */
export interface Block {
  /** Which measure it comes from. */
  readonly measure: number;
  /** For a quantile tree, the level (1 to DEPTH: BRANCHING^level nodes); else 0 (the measure's cells). */
  readonly level: number;
  /** Coordinates per group. */
  readonly size: number;
  /** How much one row can move the block's coordinates in one group, in l1 norm (and so in l2); for units, one unit. */
  readonly perRow: number;
}

export interface Layout {
  readonly measures: readonly Measure[];
  readonly blocks: readonly Block[];
  readonly quantiles: QuantileMethod;
}

/**
 * The sum or squares measure of a column, centred on its range's midpoint or not. Bounds found
 * privately are marked, so that they stay apart from declared ones until found (found-bounds.ts).
 */
export function boundedMeasure(kind: 'sum' | 'squares', { column, bounds: [lower, upper], found }: BoundedColumn, centred: boolean): Measure {
  return { kind, column, lower, upper, shift: centred ? (lower + upper) / 2 : 0, ...(found ? { found: true as const } : {}) };
}

/**
 * The measures and blocks of a spec: each measure once, however many statistics use it. With
 * `centred`, sums are of values less their range's midpoint, and the count is released too, so
 * that each sum is the centred sum plus the midpoint times the count (docs/aggregates.md, "One
 * vector per group"). With `quantiles` 'exponential', a quantile tree's deeper levels are not
 * noised: its leaf counts feed the exponential mechanism instead.
 */
export function layoutOf(spec: Spec, centred: boolean, quantiles: QuantileMethod = 'tree'): Layout {
  const measures: Measure[] = [];
  const blocks: Block[] = [];
  const add = (m: Measure): number => {
    const key = JSON.stringify(m);
    const found = measures.findIndex((x) => JSON.stringify(x) === key);
    if (found >= 0) return found;
    measures.push(Object.freeze(m));
    const index = measures.length - 1;
    if (m.kind === 'leaves') {
      const depth = quantiles === 'tree' ? DEPTH : INTERVAL_DEPTH;
      for (let level = 1; level <= depth; level++) blocks.push({ measure: index, level, size: BRANCHING ** level, perRow: 1 });
    } else {
      const perRow = m.kind === 'sum' || m.kind === 'squares' ? perRowOf(m) : 1;
      blocks.push({ measure: index, level: 0, size: cellsOf(m), perRow });
    }
    return index;
  };
  // Selecting groups needs the units first; asked for with declared groups, they come last.
  if (spec.groups === undefined) add({ kind: 'units' });
  if (spec.count || spec.mean.length > 0 || spec.variance.length > 0 || (centred && spec.sum.length > 0)) add({ kind: 'count' });
  for (const s of spec.sum) add(boundedMeasure('sum', s, centred));
  // A mean's sum is centred on its range's midpoint: half the sensitivity of the plain sum.
  for (const s of spec.mean) add(boundedMeasure('sum', s, true));
  // A variance needs its column's centred sum (as a mean) and its centred squares.
  for (const s of spec.variance) {
    add(boundedMeasure('sum', s, true));
    add(boundedMeasure('squares', s, true));
  }
  for (const { column, bounds } of spec.quantile) add({ kind: 'leaves', column, lower: bounds[0], upper: bounds[1] });
  for (const { column, edges } of spec.histogram) add({ kind: 'bins', column, edges });
  if (spec.diagnostics) {
    for (const m of [...measures]) {
      if (m.kind === 'count' || m.kind === 'units' || m.kind === 'dropped') continue;
      const [lower, upper] = m.kind === 'bins' ? [m.edges[0]!, m.edges.at(-1)!] : [m.lower, m.upper];
      add({ kind: 'clipped', column: m.column, lower, upper, ...(m.kind !== 'bins' && m.kind !== 'leaves' && m.found ? { found: true as const } : {}) });
    }
    if (spec.invalid === 'drop') add({ kind: 'dropped' });
  }
  if (spec.groups !== undefined && spec.units) add({ kind: 'units' });
  return Object.freeze({ measures: Object.freeze(measures), blocks: Object.freeze(blocks.map((b) => Object.freeze(b))), quantiles });
}

/** The index of leaf cell for a clipped value (both engines compute it with these operations). */
export function leafOf(x: number, lower: number, upper: number): number {
  return Math.min(LEAVES - 1, Math.floor(((x - lower) / (upper - lower)) * LEAVES));
}

/** The bin of a clipped value: the number of inner edges at or below it (a binary search). */
export function binOf(x: number, edges: readonly number[]): number {
  let low = 1;
  let high = edges.length - 1; // inner edges are edges[1 .. length - 2]
  while (low < high) {
    const middle = (low + high) >> 1;
    if (x >= edges[middle]!) low = middle + 1;
    else high = middle;
  }
  return low - 1;
}

/** clip(x) to [lower, upper]. */
export const clip = (x: number, lower: number, upper: number) => (x < lower ? lower : x > upper ? upper : x);
