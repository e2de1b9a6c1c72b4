import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, compose, gaussianDelta, gaussianEpsilon, gaussianMu, gaussianPrivacy, laplacePrivacy } from '../src/index.js';
import { expectClose } from './helpers.js';

describe('gaussianPrivacy', () => {
  it('matches the closed forms: mu = ||lambda / sigma||_2, rho = mu^2 / 2, the exact profile', () => {
    const p = gaussianPrivacy({ scales: [2, 4, 0.5], sensitivity: [1, 2, 0.25] });
    const mu = Math.sqrt(0.25 + 0.25 + 0.25);
    expectClose(p.mu, mu, 1e-14, 'mu');
    expectClose(p.rho, mu * mu / 2, 1e-14, 'rho');
    expect(p.mu).toBeGreaterThanOrEqual(mu); // rounded up
    expectClose(p.delta(1), gaussianDelta(p.mu, 1), 0, 'delta');
    expectClose(p.epsilon(1e-6), gaussianEpsilon(p.mu, 1e-6), 0, 'epsilon');
    expect(gaussianPrivacy({ scales: 2, sensitivity: [1, 1, 1, 1] }).mu).toBeCloseTo(1, 14);
  });

  it('a zero scale on a coordinate with sensitivity means no privacy, and says so', () => {
    const p = gaussianPrivacy({ scales: [1, 0, 1], sensitivity: [1, 0.5, 1] });
    expect(p.mu).toBe(Infinity);
    expect(p.delta(10)).toBe(1);
    expect(p.epsilon(1e-5)).toBe(Infinity);
    expect(p.warning).toMatch(/no privacy: coordinate 1 has sensitivity 0.5 and scale 0/);
    // A zero scale where the sensitivity is 0 is fine.
    expect(gaussianPrivacy({ scales: [1, 0], sensitivity: [1, 0] }).warning).toBeUndefined();
    expect(laplacePrivacy({ scales: [0], sensitivity: [1] })).toMatchObject({ epsilon: Infinity, warning: expect.stringMatching(/no privacy/) });
  });

  it('epsilon(delta) stays safe for very large mu (an upper bound beyond mu = 1000)', () => {
    const p = gaussianPrivacy({ scales: [1e-4], sensitivity: [1] });
    expect(p.mu).toBeCloseTo(1e4, 6);
    const eps = p.epsilon(1e-6);
    expect(eps).toBeGreaterThan(5e7);
    expect(Number.isFinite(eps)).toBe(true);
  });

  it('a calibrated mechanism\'s own scales verify at the requested (epsilon, delta), rounded to the safe side', () => {
    fc.assert(fc.property(
      fc.array(fc.double({ min: 1e-3, max: 1e3, noNaN: true }), { minLength: 1, maxLength: 30 }),
      fc.double({ min: 0.01, max: 10, noNaN: true }), fc.double({ min: -12, max: -2, noNaN: true }),
      fc.constantFrom('optimal' as const, 'iid' as const, 'spr' as const),
      (sensitivity, epsilon, logDelta, allocation) => {
        const delta = 10 ** logDelta;
        const g = calibrateGaussian({ sensitivity, epsilon, delta, allocation });
        const p = gaussianPrivacy({ scales: g.scales, sensitivity });
        expect(p.delta(epsilon)).toBeLessThanOrEqual(delta);
        expect(p.epsilon(delta)).toBeLessThanOrEqual(epsilon);
        if (allocation !== 'spr') {
          expect(p.delta(epsilon)).toBeGreaterThan(delta * (1 - 1e-6));
          expect(p.epsilon(delta)).toBeGreaterThan(epsilon * (1 - 1e-8));
        }
        const l = calibrateLaplace({ sensitivity, epsilon, allocation });
        const e = laplacePrivacy({ scales: l.scales, sensitivity }).epsilon;
        expect(e).toBeLessThanOrEqual(epsilon);
        if (allocation !== 'spr') expect(e).toBeGreaterThan(epsilon * (1 - 1e-9));
      }), { numRuns: 200, seed: 42 });
  });

  it('checks its input', () => {
    expect(() => gaussianPrivacy({ scales: [1, 1], sensitivity: [1] })).toThrow(/`scales.length` must be 1/);
    expect(() => gaussianPrivacy({ scales: [-1], sensitivity: [1] })).toThrow(/`scales\[0\]` must be a finite number >= 0; got -1/);
    expect(() => laplacePrivacy({ scales: [1], sensitivity: [NaN] })).toThrow(RangeError);
    expect(() => gaussianPrivacy({ scales: [1], sensitivity: [1] }).delta(-1)).toThrow(/`epsilon`/);
  });
});

describe('compose', () => {
  it('Gaussian releases compose exactly: mu = sqrt(sum mu_j^2), as one release of all the scales', () => {
    const a = gaussianPrivacy({ scales: [1, 2], sensitivity: [1, 1] });
    const b = gaussianPrivacy({ scales: [3], sensitivity: [2] });
    const both = compose([a, b]);
    const joint = gaussianPrivacy({ scales: [1, 2, 3], sensitivity: [1, 1, 2] });
    expect(both.kind).toBe('gaussian');
    expectClose((both as typeof a).mu, joint.mu, 1e-14, 'mu');
    // k identical steps: mu sqrt(k).
    const step = gaussianPrivacy({ scales: [1], sensitivity: [0.1] });
    expectClose((compose(Array(100).fill(step)) as typeof a).mu, 1, 1e-13, '100 steps');
  });

  it('Laplace releases add their epsilons', () => {
    const c = compose([laplacePrivacy({ scales: [2], sensitivity: [1] }), laplacePrivacy({ scales: [1, 1], sensitivity: [0.1, 0.2] })]);
    expect(c.kind).toBe('laplace');
    expectClose((c as { epsilon: number }).epsilon, 0.8, 1e-14, 'epsilon');
  });

  it('a mixture is (epsilonPure + epsilon_G(delta), delta)-DP, a safe rule', () => {
    const g = gaussianPrivacy({ scales: [1], sensitivity: [1] });
    const l = laplacePrivacy({ scales: [2], sensitivity: [1] });
    const m = compose([g, l, compose([g])]);
    expect(m.kind).toBe('mixed');
    if (m.kind !== 'mixed') return;
    expectClose(m.mu, Math.SQRT2, 1e-14, 'mu');
    expectClose(m.epsilonPure, 0.5, 1e-14, 'epsilonPure');
    expectClose(m.epsilon(1e-5), 0.5 + gaussianEpsilon(Math.SQRT2, 1e-5), 1e-12, 'epsilon');
    expect(m.delta(0.4)).toBe(1);
    expectClose(m.delta(2), gaussianDelta(m.mu, 1.5), 1e-14, 'delta');
    expect(m.epsilon(1e-5)).toBeGreaterThan(gaussianEpsilon(Math.SQRT2, 1e-5));
  });

  it('keeps warnings and rejects what is not a privacy object', () => {
    const none = gaussianPrivacy({ scales: [0], sensitivity: [1] });
    expect(compose([none, gaussianPrivacy({ scales: [1], sensitivity: [1] })]).warning).toMatch(/no privacy/);
    expect(() => compose([])).toThrow(TypeError);
    expect(() => compose([{ mu: 1 } as never])).toThrow(/`list\[0\]` must be a privacy object/);
  });

  it('composing k calibrated steps gives back the per-step budget rule mu0 / sqrt(k)', () => {
    const k = 16;
    const mu = gaussianMu(1, 1e-6);
    const step = calibrateGaussian({ sensitivity: [1, 2, 3], mu: mu / Math.sqrt(k) });
    const total = compose(Array(k).fill(gaussianPrivacy({ scales: step.scales, sensitivity: [1, 2, 3] })));
    expect(total.kind === 'gaussian' && total.delta(1)).toBeLessThanOrEqual(1e-6);
  });
});
