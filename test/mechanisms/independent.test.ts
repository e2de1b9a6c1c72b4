import { describe, expect, it } from 'vitest';
import {
  addGaussianNoise,
  calibrateGaussian,
  calibrateLaplace,
  compose,
  createRng,
  gaussianMechanism,
  gaussianNoise,
  laplaceMechanism,
  recommend,
} from '../../src/index.js';
import type { PurePrivacy } from '../../src/accounting/privacy.js';
import { readProfile } from '../../src/calibrate/allocations.js';
import { readMode } from '../../src/mechanisms/grid.js';
import { independentMechanism, releaseBlock, wholeGroupsOf } from '../../src/mechanisms/independent.js';
import { GAUSSIAN, LAPLACE } from '../../src/noise/families.js';
import { EPS, exactSum, expectClose, expectWithheld, SAFETY } from '../helpers.js';

describe('one-line mechanisms', () => {
  it('carry the calibration, their verified privacy, and release query + noise (continuous mode)', () => {
    const sensitivity = [0.5, 1, 2, 4];
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode: 'continuous' });
    const c = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6 });
    expect(m.scales).toEqual(c.scales);
    expect(m.mu).toBe(c.mu);
    expect(m.privacy.delta(1)).toBeLessThanOrEqual(1e-6);
    const query = [10, 20, 30, 40];
    const released = m.release(query, { rng: createRng({ seed: 9 }) });
    expect(query).toEqual([10, 20, 30, 40]);
    expect(released).toEqual(addGaussianNoise(Float64Array.from(query), c.scales, { rng: createRng({ seed: 9 }) }));
    const l = laplaceMechanism({ sensitivity, epsilon: 2, errorPower: 1, mode: 'continuous' });
    expect(l.privacy.epsilonPure).toBeLessThanOrEqual(2);
    expect(l.release(Float64Array.from(query)).length).toBe(4);
  });

  it('never release when the query does not fit', () => {
    const m = gaussianMechanism({ sensitivity: [1, 1], epsilon: 1, delta: 1e-6 });
    expect(() => m.release([1, 2, 3])).toThrow(/`query.length` must be 2/);
    expect(() => m.release([1, NaN])).toThrow(/`query\[1\]` must be a finite number; got NaN/);
    expect(() => m.release('12' as never)).toThrow(TypeError);
    expect(() => m.release([1, 2], { rng: 1 } as never)).toThrow(TypeError);
  });

  it('never echo a query entry: a string, a finite number out of range or a query of the wrong type is named by its place only', async () => {
    const m = gaussianMechanism({ sensitivity: [1, 1], epsilon: 1, delta: 1e-6 });
    await expectWithheld(() => m.release([1, 'SECRET-QZX'] as never), TypeError, ['`query[1]` must be a number'], ['SECRET', 'QZX']);
    await expectWithheld(() => m.release('SECRET-QZX' as never), TypeError, ['`query` must be'], ['SECRET', 'QZX']);
    // On the grid 2^-8 a query entry may be at most 2^992 (2^1000 grid steps).
    const l = laplaceMechanism({ sensitivity: [1, 1], epsilon: 1, grid: 2 ** -8 });
    await expectWithheld(() => l.release([0, 1.2345678e300]), RangeError, ['`query[1]` must be a finite number of magnitude at most'], ['12345678']);
    // Below -2^992 the same words: the message does not tell the sign.
    await expectWithheld(() => l.release([-1.2345678e300, 0]), RangeError, ['`query[0]` must be a finite number of magnitude at most'], ['12345678']);
  });
});

describe('group (per-layer) calibration', () => {
  const sizes = [100, 10, 1000];
  const sensitivity = [1, 3, 0.5];

  it('meets sum_g s_g^2 / sigma_g^2 = mu^2 with one scale per group, and counts every coordinate in the MSE', () => {
    const g = calibrateGaussian({ groups: { sizes, sensitivity }, epsilon: 1, delta: 1e-6 });
    expect(g.scales.length).toBe(3);
    expect(Array.from(g.sizes!)).toEqual(sizes);
    const d2 = exactSum(sensitivity.map((s, i) => (s / g.scales[i]!) ** 2));
    expect(d2).toBeLessThanOrEqual(g.mu ** 2);
    // Tight: SAFETY on every scale leaves mu^2 / (1 + 2^-36)^2, 2 SAFETY below, plus rounding:
    // 8 EPS (measured 2 SAFETY + 0.5 EPS; earlier 1e-9).
    expect(d2).toBeGreaterThan(g.mu ** 2 * (1 - (2 * SAFETY + 8 * EPS)));
    // The same three terms summed here and in the library: a few roundings (measured exact).
    expectClose(g.mse, exactSum(sizes.map((n, i) => n * g.scales[i]! ** 2)), 4 * EPS, 'mse');
    // The weighted optimum (p = 2): sigma_g proportional to sqrt(s_g) / n_g^(1/4). A ratio of two
    // ratios of powers, each side a few roundings: 8 EPS (measured 0.65 EPS).
    const shape = sensitivity.map((s, i) => Math.sqrt(s) / sizes[i]! ** 0.25);
    g.scales.forEach((x, i) => {
      expectClose(x / g.scales[0]!, shape[i]! / shape[0]!, 8 * EPS, `ratio ${i}`);
    });
    // iid: one scale ||s||_2 / mu; spr: sqrt(G) s_g / mu. Each raised by SAFETY, plus a few
    // roundings: 4 EPS (measured SAFETY + 0.22 EPS at most).
    const iid = calibrateGaussian({ groups: { sizes, sensitivity }, epsilon: 1, delta: 1e-6, allocation: 'iid' });
    iid.scales.forEach((x) => {
      expectClose(x, Math.hypot(...sensitivity) / g.mu, SAFETY + 4 * EPS, 'iid');
    });
    expectClose(iid.mse, 1110 * iid.scales[0]! ** 2, 4 * EPS, 'iid mse'); // a few roundings; measured exact
    const spr = calibrateGaussian({ groups: { sizes, sensitivity }, epsilon: 1, delta: 1e-6, allocation: 'spr' });
    spr.scales.forEach((x, i) => {
      expectClose(x, (Math.sqrt(3) * sensitivity[i]!) / g.mu, SAFETY + 4 * EPS, 'spr');
    });
    expect(g.mse).toBeLessThan(Math.min(iid.mse, spr.mse));
    // SAFETY cancels in the ratio; two sums of three terms and a quotient: 8 EPS (measured 2.63 EPS).
    expectClose(g.gain, iid.mse / g.mse, 8 * EPS, 'gain');
  });

  it('Laplace groups meet sum_g s_g / b_g = epsilon', () => {
    const l = laplaceMechanism({ groups: { sizes, sensitivity }, epsilon: 0.5 });
    expect(exactSum(sensitivity.map((s, i) => s / l.scales[i]!))).toBeLessThanOrEqual(0.5);
    expect(l.privacy.epsilonPure).toBeLessThanOrEqual(0.5);
  });

  it('samplers and mechanisms expand group scales to coordinates without a K-long scale array', () => {
    const scales = Float64Array.from([2, 0, 0.5]);
    const expanded = new Float64Array(1110);
    expanded.fill(2, 0, 100).fill(0, 100, 110).fill(0.5, 110);
    expect(gaussianNoise(1110, { sizes, scales }, { rng: createRng({ seed: 4 }) })).toEqual(gaussianNoise(1110, expanded, { rng: createRng({ seed: 4 }) }));
    const m = gaussianMechanism({ groups: { sizes, sensitivity }, epsilon: 1, delta: 1e-6 });
    expect(m.release(new Float64Array(1110)).length).toBe(1110);
    expect(() => m.release(new Float64Array(3))).toThrow(/`query.length` must be 1110/);
    expect(() => gaussianNoise(1000, { sizes, scales })).toThrow(/must add up to the length, 1000; got 1110/);
  });

  it('checks groups', () => {
    expect(() => calibrateGaussian({ groups: { sizes: [1, 2.5], sensitivity: [1, 1] }, epsilon: 1, delta: 1e-6 })).toThrow(
      /`groups.sizes\[1\]` must be a whole number/,
    );
    expect(() => calibrateGaussian({ groups: { sizes: [1], sensitivity: [1, 1] }, epsilon: 1, delta: 1e-6 })).toThrow(/`groups.sizes.length` must be 2/);
    expect(() => calibrateGaussian({ groups: { sizes: [1], sensitivity: [1] }, sensitivity: [1], epsilon: 1, delta: 1e-6 })).toThrow(
      /in place of `sensitivity`/,
    );
    expect(() => calibrateGaussian({ sensitivity: [1], mu: 1, epsilon: 1 } as never)).toThrow(
      /give one privacy target: `epsilon` and `delta`, `mu` or `rho`; got `epsilon` and `mu`/,
    );
  });
});

describe('recommend', () => {
  const profile = (K: number, f: (i: number) => number) => Array.from({ length: K }, (_, i) => f(i + 1));
  it('compares the Gaussian with (epsilon, delta)-Laplace, and keeps the pure Laplace calibration too', () => {
    // 100 unit sensitivities at (1, 1e-6): Laplace by the accountant has 0.17 of pure Laplace's MSE.
    const r = recommend({ sensitivity: profile(100, () => 1), epsilon: 1, delta: 1e-6 });
    expect(r.laplace.scales).toEqual(calibrateLaplace({ sensitivity: profile(100, () => 1), epsilon: 1, delta: 1e-6 }).scales);
    expect(r.laplace.mse / r.laplacePure.mse).toBeLessThan(0.2);
    expect(r.laplace.target).toEqual({ epsilon: 1, delta: 1e-6 });
    expect(r.laplacePure.target).toEqual({ epsilon: 1 });
    // Groups have no Laplace pair per group: their Laplace calibration stays pure.
    const grouped = recommend({ groups: { sizes: [2, 3], sensitivity: [1, 2] }, epsilon: 1, delta: 1e-6 });
    expect(grouped.laplace).toBe(grouped.laplacePure);
  });

  it('puts the optimal Gaussian and Laplace calibrations side by side and picks the lower error', () => {
    const uniform = recommend({ sensitivity: profile(20, () => 1), epsilon: 0.5, delta: 1e-6 });
    expect(uniform.best).toBe('gaussian');
    const spread = recommend({ sensitivity: profile(20, Math.exp), epsilon: 0.5, delta: 1e-6 });
    expect(spread.best).toBe('laplace');
    expect(spread.laplace.mse).toBeLessThan(spread.gaussian.mse);
    expect(spread.gaussian.allocation).toBe('optimal');
    // Spread-out profiles keep Laplace ahead in high dimension too.
    expect(recommend({ sensitivity: profile(10_000, (i) => Math.max(Math.exp(-i), 1e-100)), epsilon: 1, delta: 1e-6 }).best).toBe('laplace');
  });
});

describe('recommend and the staircase', () => {
  it('proposes the staircase where its pure epsilon beats both at (epsilon, delta) by 1% or more, and says why', () => {
    const r = recommend({ sensitivity: [0.15, 0.85], epsilon: 5, delta: 1e-6 });
    expect(r.best).toBe('staircase');
    expect(r.staircase!.error).toBeLessThan(0.99 * Math.min(r.laplace.error, r.gaussian.error));
    expect(r.staircase!.target).toEqual({ epsilon: 5 });
    expect(r.reason).toBe('The staircase: error 0.9605 (Gaussian), 0.1313 (Laplace), 0.08458 (staircase, pure epsilon).');
    // Four coordinates at epsilon 1: the staircase is 0.5% better than Laplace, not enough to switch.
    const close = recommend({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1, delta: 1e-6 });
    expect(close.best).toBe('laplace');
    expect(close.reason).toMatch(/the staircase gains less than 1%/);
    // Groups (and an errorPower that is not a whole number from 1 to 8) have no staircase calibration.
    expect(recommend({ groups: { sizes: [2, 3], sensitivity: [1, 2] }, epsilon: 1, delta: 1e-6 }).staircase).toBeUndefined();
    expect(recommend({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6, errorPower: 1.5 }).staircase).toBeUndefined();
    expect(recommend({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6, errorPower: 3 }).staircase?.errorPower).toBe(3);
  });
});

describe('laplaceMechanism for (epsilon, delta)', () => {
  const ones = new Array(100).fill(1);
  const spread = Array.from({ length: 1000 }, (_, i) => 1 / (1 + (i % 100)));

  it('meets the budget by the accountant, tightly, in both modes, with far smaller scales than pure epsilon', () => {
    for (const sensitivity of [ones, spread]) {
      const pure = laplaceMechanism({ sensitivity, epsilon: 1 });
      const continuous = laplaceMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode: 'continuous' });
      const grid = laplaceMechanism({ sensitivity, epsilon: 1, delta: 1e-6 });
      for (const m of [continuous, grid]) {
        expect(m.target).toEqual({ epsilon: 1, delta: 1e-6 });
        const eps = m.privacy.epsilon(1e-6);
        expect(eps).toBeLessThanOrEqual(1);
        expect(eps).toBeGreaterThan(0.995); // the search stops within 0.1% of the pure budget
        expect(m.privacy.bounds(1e-6).lower).toBeGreaterThan(0.99);
        expect(m.mse / pure.mse).toBeLessThan(0.3); // measured 0.11 (ones) and 0.04 (spread)
      }
      // The grid's exact discrete pairs cost almost nothing over continuous noise: measured +0.02%.
      expect(grid.mse / continuous.mse).toBeLessThan(1.001);
      expect(grid.mse / continuous.mse).toBeGreaterThan(0.999);
    }
  });

  it("the grid mechanism's figure is its discrete Laplace pairs', as dp_accounting's DpEvent describes them", () => {
    const m = laplaceMechanism({ sensitivity: ones, epsilon: 1, delta: 1e-6 });
    const d = Math.ceil(1 / m.grid!); // every coordinate moves by at most d steps
    const t = m.scales[0]! / m.grid!; // the scale drawn, in steps
    const event = { class_name: 'SelfComposedDpEvent', count: 100, event: { class_name: 'DiscreteLaplaceDpEvent', noise_parameter: 1 / t, sensitivity: d } };
    const fromEvent = compose([{ event }]).epsilon(1e-6);
    expect(Math.abs(fromEvent / m.privacy.epsilon(1e-6) - 1)).toBeLessThan(1e-6);
    // Randomized response at the total pure epsilon, which accounted grid-mode Laplace noise
    // before, reports about that total: 2.41 here.
    expect(m.privacy.epsilonPure).toBeGreaterThan(2);
  });

  it('refuses delta with groups, as calibrateLaplace does', () => {
    expect(() => laplaceMechanism({ groups: { sizes: [2], sensitivity: [1] }, epsilon: 1, delta: 1e-6 })).toThrow(
      /`delta` applies to Laplace noise per coordinate/,
    );
  });
});

describe('histograms (README, "Counts and histograms")', () => {
  const counts = [120, 45, 3, 0, 17, 88, 9];

  it('as one l1 group, a bin per person: 7 times less Laplace noise than a sensitivity per bin', () => {
    const grouped = laplaceMechanism({ groups: { sizes: [7], sensitivity: [1] }, epsilon: 1, mode: 'continuous' });
    const perBin = laplaceMechanism({ sensitivity: new Array(7).fill(1), epsilon: 1, mode: 'continuous' });
    expect(grouped.scales[0]).toBeCloseTo(1, 9);
    expect(perBin.scales[0]! / grouped.scales[0]!).toBeCloseTo(7, 9);
    // Replace-one moves two bins: l1 sensitivity 2, so twice the noise; Gaussian, l2 sqrt(2) against sqrt(7).
    expect(laplaceMechanism({ groups: { sizes: [7], sensitivity: [2] }, epsilon: 1, mode: 'continuous' }).scales[0]).toBeCloseTo(2, 9);
    const gaussian = (l2: number) => gaussianMechanism({ groups: { sizes: [7], sensitivity: [l2] }, epsilon: 1, delta: 1e-6, mode: 'continuous' }).scales[0]!;
    expect(gaussian(Math.sqrt(7)) / gaussian(1)).toBeCloseTo(Math.sqrt(7), 9);
  });

  it('post-processed to non-negative integers, at the privacy of the release', () => {
    const m = laplaceMechanism({ groups: { sizes: [7], sensitivity: [1] }, epsilon: 1 });
    const published = Array.from(m.release(counts, { rng: createRng({ seed: 'histogram' }) }), (x) => Math.max(0, Math.round(x)));
    expect(published.every((x) => Number.isInteger(x) && x >= 0)).toBe(true);
    published.forEach((x, i) => {
      expect(Math.abs(x - counts[i]!)).toBeLessThan(20);
    });
    expect(m.privacy.epsilonPure).toBeLessThanOrEqual(1);
  });
});

describe('whole groups on the grid of 1 (docs/aggregates.md, "Counts on the grid of 1")', () => {
  // A grouped Laplace profile: a count (sensitivity 1), four bins (l1 sensitivity 1) and a group of
  // sensitivity 0.75, which is not whole and stays on the fine grid.
  const profile = readProfile({ groups: { sizes: [1, 4, 3], sensitivity: [1, 1, 0.75] } }, true);
  const target = { notion: 'pure', epsilon: 1 } as const;
  const whole = independentMechanism(LAPLACE, target, profile, readMode({}), [true, true, true]);
  const fine = independentMechanism(LAPLACE, target, profile, readMode({}));

  it('draws only Laplace groups of whole sensitivity there, at the same scales and no more privacy spent', () => {
    expect(wholeGroupsOf(whole)).toEqual([true, true, false]);
    expect(wholeGroupsOf(fine).includes(true)).toBe(false);
    expect(wholeGroupsOf(independentMechanism(GAUSSIAN, { notion: 'gdp', mu: 1 }, profile, readMode({}), [true, true, true])).includes(true)).toBe(false);
    // Calibrated to the whole groups' exact sensitivity (the fine grid rounds it up by a step per coordinate): within 0.2%.
    whole.scales.forEach((s, k) => {
      expect(Math.abs(s / fine.scales[k]! - 1)).toBeLessThan(2e-3);
    });
    const pure = (m: typeof whole) => (m.privacy as PurePrivacy).epsilonPure;
    expect(pure(whole)).toBeLessThanOrEqual(1);
    expect(pure(whole)).toBeGreaterThan(0.999);
  });

  it('adds discrete Laplace noise of that scale on the whole numbers: E|X| = 2p / (1 - p^2), below the continuous b', () => {
    // One count at epsilon 1: scale 1, where the grid of 1 gains most.
    const count = independentMechanism(LAPLACE, target, readProfile({ groups: { sizes: [1], sensitivity: [1] } }, true), readMode({}), [true]);
    const n = 20_000;
    const counts = releaseBlock(count, 0, new Float64Array(n).fill(7), { rng: createRng({ seed: 11 }) });
    expect(counts.every(Number.isInteger)).toBe(true);
    const b = count.scales[0]!;
    expect(b).toBeCloseTo(1, 6);
    const p = Math.exp(-1 / b);
    const meanAbs = counts.reduce((s, x) => s + Math.abs(x - 7), 0) / n;
    const se = Math.sqrt((2 * p * (1 + p)) / (1 - p) ** 2 / (1 - p * p) / n); // sd of |X| is below sd of X: a loose standard error
    expect(Math.abs(meanAbs - (2 * p) / (1 - p * p))).toBeLessThan(4 * se);
    // Power: continuous Laplace noise of the same scale has E|X| = b, many standard errors away.
    expect(b - (2 * p) / (1 - p * p)).toBeGreaterThan(10 * se);
    // The fine group keeps the fine grid; a whole release of the vector draws every group.
    const vector = whole.release(Float64Array.of(3, 0, 1, 2, 5, 0.1, 0.2, 0.3), { rng: createRng({ seed: 12 }) });
    expect(Array.from(vector.subarray(0, 5)).every(Number.isInteger)).toBe(true);
    expect(Array.from(vector.subarray(5)).every(Number.isInteger)).toBe(false);
  });

  it('refuses a fraction in a whole group (values the caller promised whole)', () => {
    expect(() => whole.release(Float64Array.of(3.5, 0, 1, 2, 5, 0, 0, 0))).toThrow(/internal error: a group of whole numbers holds a fraction/);
    expect(() => releaseBlock(whole, 1, Float64Array.of(0.25))).toThrow(/internal error/);
  });
});
