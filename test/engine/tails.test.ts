import { describe, expect, it } from 'vitest';
import { sumTails } from '../../src/engine/tails.js';

const massAbove = (x: Float64Array, times: number, e1: number, c: number) => sumTails([{ x, times, e1 }]).above(c);
const sumWindow = (x: Float64Array, times: number, e1: number, tail: number) => sumTails([{ x, times, e1 }]).window(tail);

/** The times-fold self-convolution by plain sums (doubles; within about 1e-13 relative of exact for these sizes). */
function fold(x: number[], times: number): Float64Array {
  let y = Float64Array.of(1);
  for (let t = 0; t < times; t++) {
    const next = new Float64Array(y.length + x.length - 1);
    for (let i = 0; i < y.length; i++) for (let j = 0; j < x.length; j++) next[i + j]! += y[i]! * x[j]!;
    y = next;
  }
  return y;
}

const CASES = [
  { x: [0.5, 0.5], times: 1 },
  { x: [0.7, 0.2, 0.1], times: 50 },
  { x: [0, 0, 0.001, 0.999], times: 400 }, // leading zeros and a heavy top, as an add-direction loss has
  { x: [0.25, 0, 0, 0, 0.75, 0], times: 120 }, // zeros inside and at the end
];

describe('Chernoff bounds on the tails of a self-composition', () => {
  it('massAbove bounds the exact tail from above at every point, within a modest factor where the tail is not tiny', () => {
    for (const { x, times } of CASES) {
      const y = fold(x, times);
      let tail = 0;
      for (let c = y.length - 1; c >= 0; c--) {
        tail += y[c]!;
        const bound = massAbove(Float64Array.from(x), times, 0, c);
        expect(bound, `${x} x ${times} at ${c}`).toBeGreaterThanOrEqual(tail * (1 - 1e-9));
        if (tail > 1e-200) expect(bound).toBeLessThanOrEqual(Math.max(1e-280, 50 * Math.sqrt(times) * tail)); // Chernoff is within a polynomial factor
      }
      expect(massAbove(Float64Array.from(x), times, 0, y.length)).toBe(0);
    }
  });

  it('an l1 error e1 anywhere in the masses is covered', () => {
    const x = Float64Array.of(0.5, 0.499, 0);
    // The worst place of an error of 1e-3 for the upper tail: the top index, which x leaves empty.
    const y = fold([0.5, 0.499, 1e-3], 10);
    let tail = 0;
    for (let c = y.length - 1; c >= 0; c--) {
      tail += y[c]!;
      expect(massAbove(x, 10, 1e-3, c)).toBeGreaterThanOrEqual(tail * (1 - 1e-9));
    }
  });

  it('sumWindow leaves at most the given mass on each side', () => {
    for (const { x, times } of CASES) {
      const y = fold(x, times);
      for (const tail of [1e-3, 1e-12, 2 ** -60]) {
        const { lo, hi } = sumWindow(Float64Array.from(x), times, 0, tail);
        const below = y.subarray(0, lo).reduce((a, b) => a + b, 0);
        const above = y.subarray(hi + 1).reduce((a, b) => a + b, 0);
        expect(below).toBeLessThanOrEqual(tail);
        expect(above).toBeLessThanOrEqual(tail);
        expect(lo).toBeLessThanOrEqual(hi);
      }
    }
  });
});
