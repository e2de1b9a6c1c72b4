import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gini } from '../../src/index.js';
import { expectClose } from '../helpers.js';

describe('gini', () => {
  it('equals the pairwise definition', () => {
    fc.assert(fc.property(fc.array(fc.double({ min: 0, max: 100, noNaN: true }).map((x) => (x < 1e-100 ? 0 : x)), { minLength: 1, maxLength: 30 }), (lambda) => {
      const K = lambda.length;
      const total = lambda.reduce((a, b) => a + b, 0);
      let pairs = 0;
      for (const a of lambda) for (const b of lambda) pairs += Math.abs(a - b);
      expectClose(gini(lambda), total === 0 ? 0 : pairs / (2 * K * total), 1e-12, 'gini');
    }), { numRuns: 200, seed: 1 });
  });

  it('is 0 for a uniform profile and (K - 1)/K for one-hot', () => {
    expect(gini([2, 2, 2])).toBe(0);
    expectClose(gini([0, 0, 0, 5]), 0.75, 1e-15, 'one-hot');
    expect(() => gini([1, -1])).toThrow(RangeError);
  });
});
