// The accuracy of counts on the grid of 1 (docs/aggregates.md, "Counts on the grid of 1"): with
// Laplace noise a count alone at epsilon 1 has scale 1, where discrete noise on whole numbers
// errs 0.851 on average against the continuous 1, and its interval must be the discrete law's.
import { describe, expect, it } from 'vitest';
import { wholeLaplaceHalfWidth, wholeLaplaceSd } from '../../src/aggregate/accuracy.js';
import { aggregate } from '../../src/aggregate/aggregate.js';
import { createRng } from '../../src/index.js';

const GROUPS = 20_000;
/** One row per group, each its own unit: group g holds g mod 7 + 1 rows. */
const groups = Array.from({ length: GROUPS }, (_, g) => `g${g}`);
const table = groups.flatMap((group, g) => Array.from({ length: (g % 7) + 1 }, () => ({ group })));
const truth = (g: number) => (g % 7) + 1;

describe('counts on the grid of 1 (Laplace noise)', () => {
  it('the half-width is the smallest whole h with 2 p^(h+1) / (1 + p) <= 1 - level', () => {
    for (const b of [0.3, 1, 1.7, 10, 123.4]) {
      const p = Math.exp(-1 / b);
      const tail = (h: number) => (2 * p ** (h + 1)) / (1 + p);
      for (const level of [0.5, 0.9, 0.95, 0.999]) {
        const h = wholeLaplaceHalfWidth(b, level);
        expect(Number.isInteger(h)).toBe(true);
        expect(tail(h)).toBeLessThanOrEqual(1 - level);
        if (h > 0) expect(tail(h - 1)).toBeGreaterThan(1 - level);
      }
    }
    expect(wholeLaplaceHalfWidth(1, 0.95)).toBe(3);
    expect(wholeLaplaceSd(1)).toBeCloseTo(Math.sqrt(2 * Math.exp(-1)) / (1 - Math.exp(-1)), 12);
  });

  it('releases whole counts with 0.851 mean error at epsilon 1, whose intervals cover at level 0.95 where the continuous width would not', async () => {
    const r = await aggregate({ epsilon: 1, table, groupBy: 'group', groups, count: true, rng: createRng({ seed: 'whole counts' }) });
    const counts = r.rows.map((row) => row.count as { value: number; sd: number; low: number; high: number });
    expect(counts.every((c) => Number.isInteger(c.value))).toBe(true);
    const errors = counts.map((c, g) => c.value - truth(g));
    const meanError = errors.reduce((s, e) => s + Math.abs(e), 0) / GROUPS;
    // E|X| = 2p / (1 - p^2) = 0.8509 at b = 1; the sd of |X| is about 1.1, so a standard error of 0.008.
    expect(Math.abs(meanError - 0.8509)).toBeLessThan(0.035);
    expect(meanError).toBeLessThan(0.95); // continuous noise of scale 1: 1, twelve standard errors above
    const covered = counts.filter((c, g) => c.low <= truth(g) && truth(g) <= c.high).length / GROUPS;
    expect(covered).toBeGreaterThanOrEqual(0.95 - 0.005); // at least 0.973 expected (h = 3)
    // Power: the continuous half-width b ln 20 = 3.0 holds only |X| <= 2, 0.927 of the time.
    const continuous = errors.filter((e) => Math.abs(e) <= Math.log(20)).length / GROUPS;
    expect(continuous).toBeLessThan(0.94);
    expect(r.accuracy[0]).toMatchObject({ statistic: 'count', mechanism: 'laplace', halfWidth: 3 });
  });
});
