// Summation of many doubles: compensated sums (for sums over chunks and for accounting), and the
// error bound of plain sums (for queries the library computes itself).
import { roundUp } from './rounding.js';

/**
 * Sums many doubles with Neumaier's compensation (for the per-chunk partial sums). A sum that
 * overflows is Infinity, never NaN: the compensation stops at the first infinite partial sum.
 */
export class CompensatedSum {
  private sum = 0;
  private compensation = 0;

  add(x: number): void {
    const t = this.sum + x;
    if (Number.isFinite(t)) this.compensation += Math.abs(this.sum) >= Math.abs(x) ? this.sum - t + x : x - t + this.sum;
    this.sum = t;
  }

  get value(): number {
    return Number.isFinite(this.sum) ? this.sum + this.compensation : this.sum;
  }
}

/**
 * What the sensitivity of a sum of `terms` computed terms, each in [-c, c], grows to when the sum
 * is added in floating point in any order (docs/mechanisms.md, "Floating-point safety", queries the
 * library computes): c (1 + 2 m gamma_m), gamma_m = m u / (1 - m u), u = 2^-53; returned as the
 * factor, rounded up by 2^-50 (which also covers a final division).
 */
export function summationFactor(terms: number): number {
  const mu = terms * 2 ** -53;
  return roundUp(1 + (2 * terms * mu) / (1 - mu));
}
