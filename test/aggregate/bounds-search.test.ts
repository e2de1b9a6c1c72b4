// The geometric bin search's public candidates and its choice (docs/aggregates.md, "Bounds found
// privately"): every bin lies within the narrowest candidate it is mapped to and outside the one
// before, the choice is the narrowest candidate reaching the coverage, and a histogram of any
// noisy counts (negative, zero, huge) gives a candidate, never an error.
import { describe, expect, it } from 'vitest';
import { chosenBounds, emptyBelow, FALSE_BIN, MIN_EXPONENT, searchOf, VALUE_LIMIT } from '../../src/aggregate/bounds-search.js';

/** The widest candidates VALUE_LIMIT allows: 2^39. */
const MAX_EXPONENT = 39;
const both = searchOf({ side: 'both', anchor: 0, maxExponent: MAX_EXPONENT }, 'x');
const upper = searchOf({ side: 'upper', anchor: 18, maxExponent: MAX_EXPONENT }, 'x');
const lower = searchOf({ side: 'lower', anchor: 100, maxExponent: 20 }, 'x');

describe('searchOf', () => {
  it('has the candidates 2^k from 2^-10 to the widest, and bins each within its candidate and beyond the narrower one', () => {
    expect(both.candidates.map(([, u]) => Math.log2(u))).toEqual(Array.from({ length: MAX_EXPONENT - MIN_EXPONENT + 1 }, (_, i) => MIN_EXPONENT + i));
    expect(upper.candidates[0]).toEqual([18, 18 + 2 ** -10]);
    expect(lower.candidates.at(-1)).toEqual([100 - 2 ** 20, 100]);
    for (const s of [both, upper, lower]) {
      expect(s.edges.every((e, i) => i === 0 || e > s.edges[i - 1]!)).toBe(true);
      expect(s.candidateOfBin).toHaveLength(s.edges.length - 1);
      s.candidateOfBin.forEach((j, b) => {
        const [low, high] = [s.edges[b]!, s.edges[b + 1]!];
        const [cl, cu] = s.candidates[j]!;
        expect(low >= cl && high <= cu).toBe(true);
        if (j > 0) {
          const [pl, pu] = s.candidates[j - 1]!;
          expect(low >= pu || high <= pl).toBe(true); // the bin lies outside the narrower candidate
        }
      });
    }
  });

  it('stays within the values a bound may take, and refuses an end with no room left', () => {
    const near = searchOf({ side: 'upper', anchor: VALUE_LIMIT - 1000, maxExponent: MAX_EXPONENT }, 'x');
    expect(near.candidates.at(-1)![1]).toBeLessThanOrEqual(VALUE_LIMIT);
    expect(near.candidates.at(-1)![1]).toBe(VALUE_LIMIT - 1000 + 512);
    expect(() => searchOf({ side: 'upper', anchor: VALUE_LIMIT, maxExponent: MAX_EXPONENT }, 'mean.x')).toThrow(
      /^dpnoise: `mean.x` must leave room to find a bound/,
    );
  });

  it('leaves out a one-sided widest candidate centred on 0 (its centred and plain sums would be one measure)', () => {
    const s = searchOf({ side: 'upper', anchor: -(2 ** 19), maxExponent: 20 }, 'x');
    expect(s.candidates.at(-1)).toEqual([-(2 ** 19), 0]);
  });
});

describe('chosenBounds', () => {
  /** A histogram of exact counts of the values `xs`. */
  const histogramOf = (s: typeof both, xs: number[]) => {
    const bins = new Float64Array(s.edges.length - 1);
    for (const x of xs) {
      const c = Math.min(Math.max(x, s.edges[0]!), s.edges.at(-1)!);
      const b = s.edges.findIndex((e, i) => i > 0 && (c < e || i === s.edges.length - 1)) - 1;
      bins[b]! += 1;
    }
    return bins;
  };

  it('is the narrowest candidate holding the coverage of exact counts', () => {
    const xs = Array.from({ length: 100 }, (_, i) => i - 50); // |x| up to 50: 95 of them within 45
    expect(chosenBounds(both, histogramOf(both, xs), 0.9, 0.5)).toEqual([-64, 64]);
    expect(chosenBounds(both, histogramOf(both, xs), 0.5, 0.5)).toEqual([-32, 32]);
    expect(chosenBounds(upper, histogramOf(upper, [19, 20, 21, 50]), 0.75, 0.5)).toEqual([18, 22]);
    expect(chosenBounds(lower, histogramOf(lower, [99, 98, 90, 0]), 0.75, 0.5)).toEqual([84, 100]);
  });

  it('takes the bins below `empty` as empty: noise in many empty bins does not widen the bounds', () => {
    const xs = Array.from({ length: 1000 }, (_, i) => i / 20); // |x| up to 50
    const bins = histogramOf(both, xs);
    // Noise of 30 in every empty bin beyond 64: 76 of them, 2280 in all, twice the values.
    const noisy = bins.map((c, b) => (c === 0 && Math.abs(both.edges[b]!) >= 64 ? 30 : c));
    expect(chosenBounds(both, noisy, 0.95, 0)[1]).toBeGreaterThan(2 ** 30);
    expect(chosenBounds(both, noisy, 0.95, 31)).toEqual([-64, 64]);
    // No bin reaches `empty`: the counts as they are.
    expect(chosenBounds(both, bins, 0.95, 1e6)).toEqual([-64, 64]);
  });

  it('sets `empty` where noise alone reaches it in some empty bin with probability at most FALSE_BIN', () => {
    // P(Y >= x) <= e^(-x / b) per bin, m bins: m e^(-empty / b) = FALSE_BIN.
    expect(62 * Math.exp(-emptyBelow(10, 62) / 10)).toBeCloseTo(FALSE_BIN, 12);
  });

  it('gives a candidate for any noisy counts: the widest when the total is not positive', () => {
    const n = both.edges.length - 1;
    for (const bins of [new Float64Array(n), new Float64Array(n).fill(-3), Float64Array.from({ length: n }, (_, i) => (i % 2 ? 1e12 : -1e12))]) {
      expect(both.candidates).toContainEqual(chosenBounds(both, bins, 0.95, 10));
    }
    expect(chosenBounds(both, new Float64Array(n).fill(-1), 0.95, 10)).toEqual(both.candidates.at(-1));
  });
});
