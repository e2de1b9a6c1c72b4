// The RDP accountant's log-sums with directed rounding (src/math/log-bounds.ts): each is its
// closed form to within its stated bound, and the bounds lie on the safe side.
import { describe, expect, it } from 'vitest';
import { LogBinomial, logAdd, logExpm1, logSubSign, softplus, U, up, upperLogSum } from '../../src/math/log-bounds.js';

describe('log-bounds', () => {
  it('logAdd, softplus and logExpm1 match their closed forms, and do not overflow', () => {
    expect(logAdd(Math.log(2), Math.log(3))).toBeCloseTo(Math.log(5), 14);
    expect(logAdd(-Infinity, 1.5)).toBe(1.5);
    expect(logAdd(1000, 1000)).toBeCloseTo(1000 + Math.LN2, 12);
    expect(softplus(0)).toBeCloseTo(Math.LN2, 15);
    expect(softplus(800)).toBe(800);
    expect(logExpm1(1)).toBeCloseTo(Math.log(Math.E - 1), 14);
    expect(logExpm1(800)).toBe(800);
  });

  it('logSubSign gives the sign and the log of the magnitude', () => {
    const [positive, value] = logSubSign(Math.log(5), Math.log(3));
    expect(positive).toBe(true);
    expect(value).toBeCloseTo(Math.log(2), 14);
    expect(logSubSign(Math.log(3), Math.log(5))[0]).toBe(false);
    expect(logSubSign(2, 2)).toEqual([true, -Infinity]);
  });

  it('up and upperLogSum never fall below the value they bound', () => {
    expect(up(1)).toBeGreaterThan(1);
    expect(up(0)).toBeGreaterThan(0);
    expect(up(-1)).toBeGreaterThan(0);
    const L = [Math.log(1), Math.log(2), Math.log(3)];
    const sum = upperLogSum(L, [0, 0, 0], 3);
    expect(sum).toBeGreaterThanOrEqual(Math.log(6));
    expect(sum - Math.log(6)).toBeLessThan(64 * U);
    expect(upperLogSum([-Infinity], [0], 1)).toBe(-Infinity);
  });

  it('LogBinomial follows log C(alpha, i) with an error bound that covers it', () => {
    const b = new LogBinomial(10);
    for (let i = 1; i <= 5; i++) b.next();
    expect(Math.abs(b.value - Math.log(252))).toBeLessThanOrEqual(b.error);
  });
});
