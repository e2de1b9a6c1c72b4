import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { calibrateGaussian, calibrateLaplace, compose, gaussianDelta, gaussianEpsilon, gaussianMu, gaussianPrivacy, laplacePrivacy } from '../../src/index.js';
import { expectClose } from '../helpers.js';

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
    expect(laplacePrivacy({ scales: [0], sensitivity: [1] })).toMatchObject({ epsilonPure: Infinity, warning: expect.stringMatching(/no privacy/) });
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
        const e = laplacePrivacy({ scales: l.scales, sensitivity }).epsilonPure;
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
    expectClose((c as { epsilonPure: number }).epsilonPure, 0.8, 1e-14, 'epsilon');
    expect(c.epsilon(1e-9)).toBe((c as { epsilonPure: number }).epsilonPure);
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

  it('fails closed on anything but genuine figures: JSON round trips, strings, negatives, NaN', () => {
    const none = gaussianPrivacy({ scales: [0], sensitivity: [1] }); // mu = Infinity
    const saved = JSON.parse(JSON.stringify(none)); // Infinity became null
    expect(saved.mu).toBeNull();
    expect(() => compose([saved])).toThrow(/`list\[0\].mu` must be a number >= 0 \(Infinity for no privacy\); got null/);
    expect(() => compose([{ kind: 'gaussian', mu: '2' } as never])).toThrow(/`list\[0\].mu` must be a number >= 0 \(Infinity for no privacy\); got "2"/);
    expect(() => compose([{ kind: 'laplace', epsilonPure: -1 } as never])).toThrow(/`list\[0\].epsilonPure` must be a number >= 0/);
    expect(() => compose([{ kind: 'laplace', epsilon: 1 } as never])).toThrow(/`list\[0\].epsilonPure` must be a number >= 0.*got undefined/);
    expect(() => compose([{ kind: 'zcdp', rho: NaN } as never])).toThrow(/`list\[0\].rho`/);
    expect(() => compose([{ kind: 'mixed', mu: 1, epsilonPure: Infinity, warning: 3 } as never])).toThrow(/`list\[0\].warning` must be a string/);
    // Saved genuine figures still compose; Infinity stays no privacy.
    expect(compose([JSON.parse(JSON.stringify(gaussianPrivacy({ scales: [1], sensitivity: [1] })))]).kind).toBe('gaussian');
    expect((compose([none, none]) as { mu: number }).mu).toBe(Infinity);
  });

  it('composing k calibrated steps gives back the per-step budget rule mu0 / sqrt(k)', () => {
    const k = 16;
    const mu = gaussianMu(1, 1e-6);
    const step = calibrateGaussian({ sensitivity: [1, 2, 3], mu: mu / Math.sqrt(k) });
    const total = compose(Array(k).fill(gaussianPrivacy({ scales: step.scales, sensitivity: [1, 2, 3] })));
    expect(total.kind === 'gaussian' && total.delta(1)).toBeLessThanOrEqual(1e-6);
  });
});

describe('accounting fails closed: never NaN, null or negative; overflow is Infinity with a warning', () => {
  it('a scale so small that the loss overflows gives mu = Infinity and a warning, not NaN', () => {
    const p = gaussianPrivacy({ scales: [1, 1e-160], sensitivity: [1, 1] });
    expect(p.mu).toBe(Infinity);
    expect(p.rho).toBe(Infinity);
    expect(p.epsilon(1e-6)).toBe(Infinity);
    expect(p.delta(1)).toBe(1);
    expect(p.warning).toMatch(/no privacy: the privacy loss overflows/);
    const l = laplacePrivacy({ scales: [1e-320, 1], sensitivity: [1, 1] });
    expect(l.epsilonPure).toBe(Infinity);
    expect(l.epsilon(1e-6)).toBe(Infinity);
    expect(l.warning).toMatch(/no privacy/);
    expect(compose([p, l]).epsilon(1e-6)).toBe(Infinity);
  });

  it('every privacy object has one shape: kind, its own numbers, epsilon(delta) and delta(epsilon), and is frozen', () => {
    const objects = [
      gaussianPrivacy({ scales: [1], sensitivity: [1] }),
      laplacePrivacy({ scales: [2], sensitivity: [1] }),
      compose([gaussianPrivacy({ scales: [1], sensitivity: [1] }), laplacePrivacy({ scales: [2], sensitivity: [1] })]),
      compose([gaussianPrivacy({ scales: [1], sensitivity: [1] }), { kind: 'zcdp', rho: 0.1 } as never]),
    ];
    expect(objects.map((p) => p.kind)).toEqual(['gaussian', 'laplace', 'mixed', 'zcdp']);
    for (const p of objects) {
      expect(typeof p.epsilon).toBe('function');
      expect(typeof p.delta).toBe('function');
      expect(p.epsilon(1e-6)).toBeGreaterThan(0);
      expect(p.delta(0.1)).toBeGreaterThanOrEqual(0);
      expect(Object.isFrozen(p)).toBe(true);
      expect(() => { (p as { kind: string }).kind = 'gaussian'; }).toThrow(TypeError);
    }
    // Pure epsilon0-DP is (eps, 1 - e^(eps - eps0))-DP below eps0, and (eps0, 0)-DP.
    const pure = objects[1]!;
    expect(pure.delta((pure as { epsilonPure: number }).epsilonPure)).toBe(0);
    expectClose(pure.delta(0.2), -Math.expm1(0.2 - 0.5), 1e-14, 'pure delta'); // epsilonPure is 0.5 rounded up
  });
});
