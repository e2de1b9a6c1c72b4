// The exact totals an engine hands to the noise step, and the rules both engines follow to make
// them (docs/aggregates.md, "Exact sums"): each clipped value is rounded to a power-of-two quantum
// and summed as an integer, so a sum does not depend on the order of its rows, and one row moves
// it by at most its bound plus one quantum.
import { powerOfTwoBelow } from '../core/rounding.js';
import { cellsOf, type Measure, perRowOf } from './layout.js';

/** Per measure, its cells for every group (group-major: group g's cells start at g * cells). */
export type Totals = readonly Float64Array[];

/** The quantum of a sum whose terms are at most `perRow` in size: 2^-24 of it, a power of two. */
export function quantumOf(perRow: number): number {
  return powerOfTwoBelow(perRow) * 2 ** -24;
}

/** A sum or squares measure's quantum. */
export function sumQuantum(m: Measure & { kind: 'sum' | 'squares' }): number {
  return quantumOf(perRowOf(m));
}

/** A sum's term in quanta: floor((clip(x) - shift) / q + 1/2), the engines' one rule. */
export function quantaOf(clipped: number, shift: number, q: number): number {
  return Math.floor((clipped - shift) / q + 0.5);
}

/**
 * A squares measure's term in quanta: floor(((clip(x) - shift) (clip(x) - shift) - r^2/2) / q + 1/2),
 * the engines' one rule (a product, never a power function, so that every engine rounds alike).
 */
export function squareQuantaOf(clipped: number, m: Measure & { kind: 'squares' }): number {
  const d = clipped - m.shift;
  return Math.floor((d * d - perRowOf(m)) / sumQuantum(m) + 0.5);
}

/** Zeroed totals for `groups` groups. */
export function emptyTotals(measures: readonly Measure[], groups: number): Float64Array[] {
  return measures.map((m) => new Float64Array(groups * cellsOf(m)));
}

/**
 * What an engine hands over: the groups (declared, or the candidates found when they are
 * selected), each one's number of kept units, and the totals of the groups asked for. Totals are
 * made only for the groups released: a candidate that is not costs its count alone.
 */
export interface GroupTotals {
  readonly groups: readonly string[];
  /** Each group's number of units with a kept valid row. */
  units(): Float64Array;
  /** The totals of the groups at `indices`, in that order. */
  totalsOf(indices: readonly number[]): Totals;
}
