// Independent-noise accounting (src/accounting/independent.ts): gaussianPrivacy and laplacePrivacy.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, gaussianDelta, gaussianEpsilon, gaussianPrivacy, laplacePrivacy } from '../../src/index.js';
import { EPS, expectClose, fixture, SAFETY } from '../helpers.js';

/**
 * gaussianPrivacy rounds the sum up (ROUND_UP) before the square root and mu again after it:
 * ROUND_UP / 2 + ROUND_UP = 6 EPS above the exact value; with the roundings of the terms, the sum
 * and the square root, 8 EPS.
 */
const MU = 8 * EPS;

describe('gaussianPrivacy', () => {
  it('matches the closed forms: mu = ||lambda / sigma||_2, rho = mu^2 / 2, the exact profile', () => {
    const p = gaussianPrivacy({ scales: [2, 4, 0.5], sensitivity: [1, 2, 0.25] });
    const mu = Math.sqrt(0.25 + 0.25 + 0.25);
    expectClose(p.mu, mu, MU, 'mu'); // measured 6.35 EPS
    expectClose(p.rho, (mu * mu) / 2, 2 * MU, 'rho'); // mu's error, doubled by the square; measured 12.7 EPS
    expect(p.mu).toBeGreaterThanOrEqual(mu); // rounded up
    expectClose(p.delta(1), gaussianDelta(p.mu, 1), 0, 'delta'); // the same computation: exact
    expectClose(p.epsilon(1e-6), gaussianEpsilon(p.mu, 1e-6), 0, 'epsilon');
    // Measured 6 EPS. (Earlier toBeCloseTo(1, 14): 22.5 EPS.)
    expectClose(gaussianPrivacy({ scales: 2, sensitivity: [1, 1, 1, 1] }).mu, 1, MU, 'mu of four coordinates');
  });

  it('a zero scale on a coordinate with sensitivity means no privacy, and says so', () => {
    const p = gaussianPrivacy({ scales: [1, 0, 1], sensitivity: [1, 0.5, 1] });
    expect(p.mu).toBe(Infinity);
    expect(p.delta(10)).toBe(1);
    expect(p.epsilon(1e-5)).toBe(Infinity);
    expect(p.warning).toMatch(/no privacy: coordinate 1 has sensitivity 0.5 and scale 0/);
    // A zero scale where the sensitivity is 0 is fine.
    expect(gaussianPrivacy({ scales: [1, 0], sensitivity: [1, 0] }).warning).toBeUndefined();
    expect(laplacePrivacy({ scales: [0], sensitivity: [1] })).toMatchObject({ epsilonPure: Infinity, warning: expect.stringMatching(/no privacy/) });
  });

  it('epsilon(delta) stays safe for very large mu (an upper bound beyond mu = 1000)', () => {
    const p = gaussianPrivacy({ scales: [1e-4], sensitivity: [1] });
    expectClose(p.mu, 1e4, MU, 'mu'); // measured 6 EPS (earlier toBeCloseTo(1e4, 6): 2.3e5 EPS)
    const eps = p.epsilon(1e-6);
    expect(eps).toBeGreaterThan(5e7);
    expect(Number.isFinite(eps)).toBe(true);
  });

  it("a calibrated mechanism's own scales verify at the requested (epsilon, delta), rounded to the safe side", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 30 }),
        fc.double({ min: 0.01, max: 10, noNaN: true }),
        fc.double({ min: -12, max: -2, noNaN: true }),
        fc.constantFrom('optimal' as const, 'iid' as const, 'spr' as const),
        (sensitivity, epsilon, logDelta, allocation) => {
          const delta = 10 ** logDelta;
          const g = calibrateGaussian({ sensitivity, epsilon, delta, allocation });
          const p = gaussianPrivacy({ scales: g.scales, sensitivity });
          expect(p.delta(epsilon)).toBeLessThanOrEqual(delta);
          expect(p.epsilon(delta)).toBeLessThanOrEqual(epsilon);
          if (allocation !== 'spr') {
            // Tight: the scales' SAFETY (and gaussianMu's margin below the root, under 0.1 SAFETY here)
            // lowers mu by about 1.1 SAFETY, which lowers delta by the elasticity
            // d ln delta / d ln mu = mu phi(a) / delta times that. Over eps <= 10 and delta >= 1e-12
            // the elasticity is at most 58 (at eps = 10, delta = 1e-12): 128 SAFETY (measured
            // 58 SAFETY; earlier 1e-6 = 68719 SAFETY). For epsilon the elasticity
            // d ln eps / d ln mu = mu / (eps M(b)) is at most 3.6 here: 8 SAFETY (measured 3.6 SAFETY;
            // earlier 1e-8 = 687 SAFETY).
            expect(p.delta(epsilon)).toBeGreaterThan(delta * (1 - 128 * SAFETY));
            expect(p.epsilon(delta)).toBeGreaterThan(epsilon * (1 - 8 * SAFETY));
          }
          const l = calibrateLaplace({ sensitivity, epsilon, allocation });
          const e = laplacePrivacy({ scales: l.scales, sensitivity }).epsilonPure;
          expect(e).toBeLessThanOrEqual(epsilon);
          // Tight: SAFETY on every scale, plus 4 EPS for rounding, which the accounting's round-up
          // already covers (measured SAFETY - 2.5 EPS; earlier 1e-9).
          if (allocation !== 'spr') expect(e).toBeGreaterThan(epsilon * (1 - (SAFETY + 4 * EPS)));
        },
      ),
      { numRuns: 200, seed: 42 },
    );
  });

  it('checks its input', () => {
    expect(() => gaussianPrivacy({ scales: [1, 1], sensitivity: [1] })).toThrow(/`scales.length` must be 1/);
    expect(() => gaussianPrivacy({ scales: [-1], sensitivity: [1] })).toThrow(/`scales\[0\]` must be a finite number >= 0; got -1/);
    expect(() => laplacePrivacy({ scales: [1], sensitivity: [NaN] })).toThrow(RangeError);
    expect(() => gaussianPrivacy({ scales: [1], sensitivity: [1] }).delta(-1)).toThrow(/`epsilon`/);
  });
});

describe('gaussianPrivacy at the extremes (a search that never ended, issue 47)', () => {
  const { cases } = fixture<{ cases: { mu: number; delta: number; epsilon: number }[] }>('extreme-gaussian.json');

  it.each(cases)(
    'mu $mu at delta $delta: at least the exact epsilon (mpmath, 800 digits), within 1e-9 of it',
    ({ mu, delta, epsilon }) => {
      // Sensitivities and scales stay within [2^-400, 2^400]: the smallest distances from a sensitivity of 1e-120.
      const privacy = mu >= 1e-100 ? gaussianPrivacy({ scales: [1], sensitivity: [mu] }) : gaussianPrivacy({ scales: [1e-120 / mu], sensitivity: [1e-120] });
      const got = privacy.epsilon(delta);
      expect(got).toBeGreaterThanOrEqual(epsilon);
      expect(got).toBeLessThanOrEqual(epsilon * (1 + 1e-9) + 5e-324);
      expect(privacy.delta(got)).toBeLessThanOrEqual(delta);
    },
    10_000,
  );
});
