// The one calibration search (src/math/search.ts): a target met exactly, one met up to the
// ceiling, a start that does not meet, a non-monotone corner, and a predicate that never fails.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_STEPS } from '../../src/core/rounding.js';
import { largestMeeting } from '../../src/math/search.js';

describe('largestMeeting', () => {
  it('returns the largest value that meets, within the gap below the threshold, and only values it checked', () => {
    const checked = new Set<number>();
    const meets = (x: number) => {
      checked.add(x);
      return x <= Math.PI;
    };
    const x = largestMeeting(meets, 0.01, { gap: 1e-9 });
    expect(x).toBeLessThanOrEqual(Math.PI);
    expect(x).toBeGreaterThan(Math.PI * (1 - 1e-9));
    expect(checked.has(x)).toBe(true);
  });

  it('stops at the ceiling when it meets there, and at the start when nothing above meets', () => {
    expect(largestMeeting(() => true, 1, { gap: 1e-6, ceiling: 10 })).toBe(10);
    expect(largestMeeting((x) => x <= 1, 1, { gap: 1e-6 })).toBe(1);
    expect(largestMeeting((x) => x <= 5, 1, { gap: 1e-3, ceiling: 3 })).toBe(3);
  });

  it('refuses a start that does not meet its target', () => {
    expect(() => largestMeeting(() => false, 1, { gap: 1e-3 })).toThrow(/internal error/);
    expect(() => largestMeeting(() => true, 0, { gap: 1e-3 })).toThrow(/internal error/);
  });

  it('returns a value that meets where the predicate is not monotone', () => {
    // Meets below 2 and in (5, 6): doubling passes 2 -> 4 (fails); bisection stays in [2, 4).
    const meets = (x: number) => x < 2 || (x > 5 && x < 6);
    const x = largestMeeting(meets, 1, { gap: 1e-6 });
    expect(meets(x)).toBe(true);
    expect(x).toBeGreaterThan(2 * (1 - 1e-6));
  });

  it('ends when nothing fails: at the largest double, within its step cap', () => {
    let calls = 0;
    const x = largestMeeting(
      () => {
        calls++;
        return true;
      },
      2 ** -1074,
      { gap: 1e-3 },
    );
    expect(x).toBe(Number.MAX_VALUE);
    expect(calls).toBeLessThanOrEqual(MAX_SEARCH_STEPS + 2);
  });
});

describe('the calibrations', () => {
  it('all search by largestMeeting: its callers', () => {
    const root = new URL('../../src/', import.meta.url).pathname;
    const callers = readdirSync(root, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && f !== join('math', 'search.ts'))
      .filter((f) => readFileSync(join(root, f), 'utf8').includes('largestMeeting('))
      .sort();
    // The grid Gaussian distance, the aggregate plan's per-group budget, DP-SGD's noise multiplier, and (epsilon, delta)-Laplace's pure budget.
    expect(callers).toEqual(['accounting/distance.ts', 'aggregate/plan.ts', 'applications/dpsgd.ts', 'calibrate/allocations.ts']);
  });
});
