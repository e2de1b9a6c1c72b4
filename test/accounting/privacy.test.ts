import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DpEventJson,
  calibrateGaussian,
  calibrateLaplace,
  compose,
  gaussianDelta,
  gaussianEpsilon,
  gaussianMechanism,
  gaussianMu,
  gaussianPrivacy,
  laplacePrivacy,
  subsample,
} from '../../src/index.js';
import { EPS, expectClose, fixture, ROUND_UP, SAFETY } from '../helpers.js';
import { thresholdedPrivacy } from '../../src/accounting/privacy.js';

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

describe('compose', () => {
  it('Gaussian releases compose exactly: mu = sqrt(sum mu_j^2), as one release of all the scales', () => {
    const a = gaussianPrivacy({ scales: [1, 2], sensitivity: [1, 1] });
    const b = gaussianPrivacy({ scales: [3], sensitivity: [2] });
    const both = compose([a, b]);
    const joint = gaussianPrivacy({ scales: [1, 2, 3], sensitivity: [1, 1, 2] });
    expect(both.kind).toBe('gdp');
    expect(both.family).toBe('composition');
    // Both are MU above the exact value; compose rounds up once more (ROUND_UP): measured 3.84 EPS.
    expectClose((both as typeof a).mu, joint.mu, MU, 'mu');
    // k identical steps: mu sqrt(k). The step's mu is 6 EPS high and compose rounds up once more
    // (ROUND_UP): 10 EPS, plus 2 EPS of rounding (measured 10.0 EPS).
    const step = gaussianPrivacy({ scales: [1], sensitivity: [0.1] });
    expectClose((compose(Array(100).fill(step)) as typeof a).mu, 1, 12 * EPS, '100 steps');
  });

  it('Laplace releases add their epsilons', () => {
    const c = compose([laplacePrivacy({ scales: [2], sensitivity: [1] }), laplacePrivacy({ scales: [1, 1], sensitivity: [0.1, 0.2] })]);
    expect(c.kind).toBe('pure');
    // Two round-ups (laplacePrivacy's and compose's): 8 EPS, plus 4 EPS of rounding (measured 7.5 EPS).
    expectClose((c as { epsilonPure: number }).epsilonPure, 0.8, 2 * ROUND_UP + 4 * EPS, 'epsilon');
    // At delta > 0 the accountant may certify less: the loss reaches 0.8 only when all three
    // coordinates are at their extremes, so epsilon(1e-9) sits just below the sum, never above.
    const epsilonPure = (c as { epsilonPure: number }).epsilonPure;
    expect(c.epsilon(0)).toBe(epsilonPure);
    expect(c.epsilon(1e-9)).toBeLessThanOrEqual(epsilonPure);
    expect(c.epsilon(1e-9)).toBeGreaterThan(epsilonPure - 1e-7);
  });

  it('a mixture is accounted by the privacy-loss distribution, never above basic composition', () => {
    const g = gaussianPrivacy({ scales: [1], sensitivity: [1] });
    const l = laplacePrivacy({ scales: [2], sensitivity: [1] });
    const m = compose([g, l, compose([g])]);
    expect(m.kind).toBe('pld');
    expect(m.family).toBe('composition');
    // Basic composition: (0.5 + epsilon_G(delta; sqrt 2), delta) is valid, and the accountant's
    // figure never exceeds it (it is the smaller of the two, and here the tight one is smaller).
    const basic = 0.5 + gaussianEpsilon(Math.SQRT2, 1e-5);
    expect(m.epsilon(1e-5)).toBeLessThan(basic);
    const { lower, upper } = m.bounds(1e-5);
    expect(upper).toBe(m.epsilon(1e-5));
    expect(lower).toBeGreaterThan(0.99 * upper); // certified within 1%
    expect(m.delta(m.epsilon(1e-5))).toBeLessThanOrEqual(1.0001e-5);
  });

  it('mixtures the review measured: 10 Laplace (b = 10) + 10 Gaussian (z = 2) is 8.49 at 1e-6, not 9.31; Laplace 0.5 + a grid Gaussian (0.5, 1e-6) at most 1, not 2.49', () => {
    const laplace = laplacePrivacy({ scales: [10], sensitivity: [1] });
    const gaussian = gaussianPrivacy({ scales: [2], sensitivity: [1] });
    const both = compose([
      { privacy: laplace, times: 10 },
      { privacy: gaussian, times: 10 },
    ]);
    // dp_accounting 0.6.0 at a 1e-5 discretization: 8.49170693123172 (test/fixtures/accounting.json).
    const reference = 8.49170693123172;
    const { lower, upper } = both.bounds(1e-6);
    expect(lower).toBeLessThanOrEqual(reference);
    expect(upper).toBeGreaterThanOrEqual(reference);
    expect(upper / reference - 1).toBeLessThan(0.01);
    const grid = gaussianMechanism({ sensitivity: [1], epsilon: 0.5, delta: 1e-6 }).privacy;
    const mixed = compose([laplacePrivacy({ scales: [2], sensitivity: [1] }), grid]);
    expect(mixed.epsilon(1e-6)).toBeLessThanOrEqual(1 + 1e-9); // basic composition: 0.5 + 0.5
  });

  it('keeps warnings and rejects what is not a privacy object', () => {
    const none = gaussianPrivacy({ scales: [0], sensitivity: [1] });
    expect(compose([none, gaussianPrivacy({ scales: [1], sensitivity: [1] })]).warning).toMatch(/no privacy/);
    expect(() => compose([])).toThrow(TypeError);
    expect(() => compose([{ mu: 1 } as never])).toThrow(/`list\[0\]` must be a privacy object/);
  });

  it('takes only the privacy objects dpnoise made: a JSON round trip, a copy or a literal of the right shape is refused', () => {
    const none = gaussianPrivacy({ scales: [0], sensitivity: [1] }); // mu = Infinity
    const saved = JSON.parse(JSON.stringify(none)); // Infinity became null
    expect(saved.mu).toBeNull();
    const refused = /`list\[0\]` must be a privacy object made by dpnoise .*; got an object of that shape that dpnoise did not make/;
    expect(() => compose([saved])).toThrow(refused);
    expect(() => compose([{ ...gaussianPrivacy({ scales: [1], sensitivity: [1] }) }])).toThrow(refused); // a copy
    expect(() => compose([{ kind: 'pure', family: 'laplace', epsilonPure: 0.001, epsilon: () => 0.001, delta: () => 0 } as never])).toThrow(refused);
    expect(() => compose([{ kind: 'laplace', epsilonPure: 0.001 } as never])).toThrow(refused); // the review's example
    expect(() => compose(['gdp' as never])).toThrow(/`list\[0\]` must be a privacy object made by dpnoise .*; got "gdp"/);
    // Infinity stays no privacy.
    expect((compose([none, none]) as { mu: number }).mu).toBe(Infinity);
  });

  it('composes a release repeated k times ({ privacy, times }) as k copies of it', () => {
    const g = gaussianPrivacy({ scales: [2], sensitivity: [1] });
    const l = laplacePrivacy({ scales: [4], sensitivity: [1] });
    const z = compose([g, { privacy: l, times: 1 }, gaussianMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6 }).privacy]);
    for (const p of [g, l, z]) {
      const repeated = compose([{ privacy: p, times: 7 }]);
      const copies = compose(Array(7).fill(p));
      expect(repeated.kind).toBe(copies.kind);
      // Closed forms: the same figure by k * rho (or sqrt(k) mu) and by a sum of k terms, 8 EPS.
      // The accountant's figures come from distributions built in another order, each settled to
      // 1/1000 of itself: 2e-3.
      expectClose(repeated.epsilon(1e-6), copies.epsilon(1e-6), p.kind === 'pure' || p.kind === 'pld' ? 2e-3 : 8 * EPS, `${p.kind} x 7`);
    }
    expect(() => compose([{ privacy: g, times: 0 }])).toThrow(/`list\[0\].times` must be a number >= 1/);
    expect(() => compose([{ privacy: g, times: 1.5 }])).toThrow(/`list\[0\].times` must be an integer/);
    expect(() => compose([{ privacy: g, times: 2, count: 3 } as never])).toThrow(/unknown option `count`/);
  });

  it('composing k calibrated steps gives back the per-step budget rule mu0 / sqrt(k)', () => {
    const k = 16;
    const mu = gaussianMu(1, 1e-6);
    const step = calibrateGaussian({ sensitivity: [1, 2, 3], mu: mu / Math.sqrt(k) });
    const total = compose(Array(k).fill(gaussianPrivacy({ scales: step.scales, sensitivity: [1, 2, 3] })));
    expect(total.kind === 'gdp' && total.delta(1)).toBeLessThanOrEqual(1e-6);
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
      compose([gaussianPrivacy({ scales: [1], sensitivity: [1] }), gaussianMechanism({ sensitivity: [1], rho: 0.1 }).privacy]),
    ];
    expect(objects.map((p) => p.kind)).toEqual(['gdp', 'pure', 'pld', 'zcdp']);
    expect(objects.map((p) => p.family)).toEqual(['gaussian', 'laplace', 'composition', 'composition']);
    for (const p of objects) {
      expect(typeof p.epsilon).toBe('function');
      expect(typeof p.delta).toBe('function');
      expect(p.epsilon(1e-6)).toBeGreaterThan(0);
      expect(p.delta(0.1)).toBeGreaterThanOrEqual(0);
      expect(Object.isFrozen(p)).toBe(true);
      expect(() => {
        (p as { kind: string }).kind = 'pure';
      }).toThrow(TypeError);
    }
    // Pure epsilon0-DP is (eps, 1 - e^(eps - eps0))-DP below eps0, and (eps0, 0)-DP: epsilon(0) answers.
    const pure = objects[1]!;
    expect(pure.delta((pure as { epsilonPure: number }).epsilonPure)).toBe(0);
    expect(pure.epsilon(0)).toBe((pure as { epsilonPure: number }).epsilonPure);
    expect(objects[0]!.epsilon(0)).toBe(Infinity); // no finite epsilon at delta 0 for Gaussian noise
    expect(objects[3]!.epsilon(0)).toBe(Infinity);
    // One Laplace coordinate is accounted by its own loss, tighter than the pure conversion
    // 1 - e^(0.2 - 0.5): its hockey-stick curve is 1 - e^((0.2 - 0.5) / 2) (docs/accounting.md),
    // which the accountant's figure bounds from above within its 1% (measured 4.8e-14 relative).
    expect(pure.delta(0.2)).toBeLessThan(-Math.expm1(0.2 - 0.5));
    expect(pure.delta(0.2)).toBeGreaterThanOrEqual(-Math.expm1((0.2 - 0.5) / 2));
    expect(pure.delta(0.2)).toBeLessThan(-Math.expm1((0.2 - 0.5) / 2) * 1.01);
  });
});

/** dp_accounting 0.6.0's answer for a fixture case (scripts/accounting_reference.py). */
function reference(id: string, method: 'pld' | 'rdp', interval?: number): number {
  const { cases } = fixture<{ cases: { id: string; results: { method: string; value_discretization_interval?: number; query: string; epsilon: number }[] }[] }>(
    'accounting.json',
  );
  const result = cases
    .find((c) => c.id === id)!
    .results.find((r) => r.method === method && r.query === 'epsilon' && (interval === undefined || r.value_discretization_interval === interval));
  return result!.epsilon;
}

describe('subsample: DP-SGD accounting', () => {
  const step = (z: number, rate: number) => subsample(gaussianPrivacy({ scales: z, sensitivity: [1] }), { rate });

  it('10^4 steps at noise multiplier 1.1, rate 0.01: within 0.1% of dp_accounting, its value in the certified range', () => {
    const run = compose([{ privacy: step(1.1, 0.01), times: 10000 }]);
    expect(run.kind).toBe('pld');
    const ref = reference('poisson_gaussian_z1.1_q0.01_T10000', 'pld', 1e-5); // 5.19258
    expect(run.epsilon(1e-5) / ref - 1).toBeLessThan(1e-3); // measured 3.4e-4
    expect(run.epsilon(1e-5)).toBeGreaterThan(ref * (1 - 1e-6));
    const { lower, upper } = run.bounds(1e-5);
    expect(lower).toBeLessThanOrEqual(ref);
    expect(upper).toBeGreaterThanOrEqual(ref);
    // The Renyi route (dp_accounting's RdpAccountant, the same orders) is looser: 5.6 against 5.19.
    expect(run.rdp(2)).toBeGreaterThan(0);
    // The run as dp_accounting's DpEvent; the noise multiplier is 1 / mu, mu rounded up (8 EPS).
    const json = run.toDpEvent() as { class_name: string; count: number; event: { sampling_probability: number; event: { noise_multiplier: number } } };
    expect([json.class_name, json.count, json.event.sampling_probability]).toEqual(['SelfComposedDpEvent', 10000, 0.01]);
    expectClose(json.event.event.noise_multiplier, 1.1, 8 * EPS, 'noise multiplier');
    expect(json.event.event.noise_multiplier).toBeLessThanOrEqual(1.1);
  });

  it('a schedule of noise multipliers (0.8 to 1.2 over 1000 steps) composes step by step: within 0.2% of dp_accounting', () => {
    const steps = Array.from({ length: 1000 }, (_, t) => step(0.8 + (0.4 * t) / 999, 0.01));
    const run = compose(steps);
    const ref = reference('dpsgd_schedule_q0.01_z0.8_to_1.2_T1000', 'pld', 1e-4); // 2.09400
    expect(run.epsilon(1e-5) / ref - 1).toBeLessThan(2e-3);
    expect(run.epsilon(1e-5)).toBeLessThan(reference('dpsgd_schedule_q0.01_z0.8_to_1.2_T1000', 'rdp')); // 2.62 by RDP
  });

  it('a Laplace release on Poisson batches: the subsampled Laplace pair, not randomized response', () => {
    const run = compose([{ privacy: subsample(laplacePrivacy({ scales: 2, sensitivity: [1] }), { rate: 0.01 }), times: 1000 }]);
    const ref = reference('poisson_laplace_b2_q0.01_T1000', 'pld', 1e-5); // 0.53045
    expect(run.epsilon(1e-5) / ref - 1).toBeLessThan(1e-3);
  });

  it('fixed-size batches without replacement: the Renyi route, as dp_accounting computes it (replace-one neighbours)', () => {
    const wor = subsample(gaussianPrivacy({ scales: 1.1, sensitivity: [1] }), { size: 256, population: 60000 });
    expect(wor.kind).toBe('approximate');
    const run = compose([{ privacy: wor, times: 1000 }]);
    const ref = reference('wor_gaussian_z1.1_n256_N60000_T1000', 'rdp'); // 1.27864
    expect(run.epsilon(1e-5)).toBeGreaterThanOrEqual(ref);
    expect(run.epsilon(1e-5) / ref - 1).toBeLessThan(1e-9);
  });

  it('refuses shuffled epochs, mixed options and compositions; checks the rate and the sizes', () => {
    const g = gaussianPrivacy({ scales: 1, sensitivity: [1] });
    expect(() => subsample(g, { sampling: 'shuffle' } as never)).toThrow(/Shuffled epochs .* refuses to account them as Poisson/);
    expect(() => subsample(g, { rate: 0.1, size: 10, population: 100 } as never)).toThrow(/not both/);
    expect(() => subsample(g, { rate: 0 })).toThrow(/`rate` must be a number > 0 and <= 1; got 0/);
    expect(() => subsample(g, { size: 11, population: 10 })).toThrow(/`size` must be/);
    expect(subsample(compose([g, g]), { rate: 0.1 }).kind).toBe('pld'); // Gaussian releases composed are one Gaussian release
    expect(() => subsample(compose([g, laplacePrivacy({ scales: 1, sensitivity: [1] })]), { rate: 0.1 })).toThrow(/subsample each release, then compose/);
    expect(() => subsample({ ...g }, { rate: 0.1 })).toThrow(/made by dpnoise/);
    // Rate 1 is no amplification: the release's own privacy.
    expect(subsample(g, { rate: 1 }).epsilon(1e-6)).toBeCloseTo(g.epsilon(1e-6), 3);
  });

  it('amplifies: a subsampled release is never less private than the release itself, and far more at small rates', () => {
    for (const p of [gaussianPrivacy({ scales: 0.7, sensitivity: [1] }), laplacePrivacy({ scales: 0.5, sensitivity: [1] })]) {
      for (const rate of [0.5, 0.1, 0.001]) {
        const s = subsample(p, { rate });
        expect(s.epsilon(1e-6)).toBeLessThanOrEqual(p.epsilon(1e-6));
        if (rate === 0.001) expect(s.epsilon(1e-6)).toBeLessThan(0.05 * p.epsilon(1e-6));
      }
    }
  });
});

describe("compose: dp_accounting's DpEvent JSON", () => {
  interface Case {
    id: string;
    event?: DpEventJson;
    results: { method: string; value_discretization_interval?: number; query: string; delta: number; epsilon: number }[];
  }
  const { cases } = fixture<{ cases: Case[] }>('accounting.json');
  const withEvent = cases.filter((c) => c.event !== undefined && c.results.some((r) => r.query === 'epsilon'));

  it('every fixture event is accounted from its JSON: above the true value, within 1% of dp_accounting (PLD) or at most its Renyi figure', () => {
    expect(withEvent.length).toBeGreaterThanOrEqual(40);
    for (const c of withEvent) {
      const run = compose([{ event: c.event! }]);
      const pld = c.results.filter((r) => r.method === 'pld' && r.query === 'epsilon');
      const rdp = c.results.find((r) => r.method === 'rdp' && r.query === 'epsilon');
      const direct = c.results.find((r) => r.method === 'pld_direct' && r.query === 'epsilon');
      if (direct) {
        // The discrete Gaussian (dp_accounting's PLDAccountant does not take it): its exact pair,
        // within 0.1% of dp_accounting's direct PLD at interval 1e-4 (a hair above the exact
        // value; never below it: test/engine/pld.test.ts, "the discrete Gaussian pair").
        const value = run.epsilon(direct.delta);
        expect(Math.abs(value / direct.epsilon - 1), c.id).toBeLessThan(1e-3);
        if (rdp) expect(value, c.id).toBeLessThan(rdp.epsilon);
      } else if (pld.length > 0) {
        const finest = pld.reduce((a, b) => (a.value_discretization_interval! <= b.value_discretization_interval! ? a : b));
        const value = run.epsilon(finest.delta);
        expect(value / finest.epsilon - 1, c.id).toBeLessThan(0.01);
        // Never below the exact value where there is one (dp_accounting's own figure is a hair above it).
        const exact = c.results.find((r) => r.method === 'exact' && r.query === 'epsilon');
        expect(value, c.id).toBeGreaterThanOrEqual(exact ? exact.epsilon : finest.epsilon * (1 - 1e-6));
      } else if (rdp) {
        // Renyi only (without replacement): never above dp_accounting's Renyi figure.
        const value = run.epsilon(rdp.delta);
        expect(value, c.id).toBeLessThanOrEqual(rdp.epsilon * (1 + 1e-9));
      }
    }
  });

  it('an event composes with dpnoise releases, `times` repeats it, and the result writes the same JSON back', () => {
    const gaussian = { module_name: 'dp_accounting.dp_event', class_name: 'GaussianDpEvent', noise_multiplier: 2 };
    const twice = compose([{ event: gaussian, times: 2 }]);
    expect(twice.kind).toBe('gdp');
    expectClose((twice as { mu: number }).mu, Math.SQRT2 / 2, 16 * EPS, 'mu'); // 1/2 rounded up, then the composition's round-up
    const mixed = compose([{ event: gaussian }, laplacePrivacy({ scales: 2, sensitivity: [1] })]);
    expect(mixed.kind).toBe('pld');
    // Written back with the noise multiplier 1/mu, mu rounded up: never larger than what was read.
    const { event: written } = compose([{ event: gaussian }]).toDpEvent() as unknown as { event: { class_name: string; noise_multiplier: number } };
    expect(written.class_name).toBe('GaussianDpEvent');
    expect(written.noise_multiplier).toBeLessThanOrEqual(2);
    expectClose(written.noise_multiplier, 2, 8 * EPS, 'noise multiplier');
  });

  it('no release (NoOpDpEvent, a count of 0) is no loss: epsilon 0', () => {
    const noOp = compose([{ event: { class_name: 'NoOpDpEvent' } }]);
    expect([noOp.epsilon(1e-6), noOp.epsilon(0), noOp.delta(0)]).toEqual([0, 0, 0]);
    const none = compose([{ event: { class_name: 'SelfComposedDpEvent', count: 0, event: { class_name: 'GaussianDpEvent', noise_multiplier: 1 } } }]);
    expect(none.epsilon(1e-6)).toBe(0);
    const gaussian = gaussianPrivacy({ scales: 1, sensitivity: [1] });
    expect(compose([gaussian, noOp]).epsilon(1e-6)).toBeCloseTo(gaussian.epsilon(1e-6), 3);
  });

  it('refuses what is not a DpEvent, or an item with both a privacy and an event', () => {
    expect(() => compose([{ event: { class_name: 'ShuffledDpEvent' } }])).toThrow(TypeError);
    expect(() => compose([{ event: null as never }])).toThrow(/`list\[0\].event` must be a DpEvent/);
    const g = gaussianPrivacy({ scales: 1, sensitivity: [1] });
    expect(() => compose([{ event: { class_name: 'GaussianDpEvent', noise_multiplier: 1 }, privacy: g } as never])).toThrow(/privacy/);
    expect(() => compose([g], { method: 'tight' as never })).toThrow(/`method` must be 'pld' or 'rdp'/);
  });

  it("method 'rdp' reports the Renyi route alone, as dp_accounting's RdpAccountant does", () => {
    const step = subsample(gaussianPrivacy({ scales: 1.1, sensitivity: [1] }), { rate: 0.01 });
    const ref = cases.find((c) => c.id === 'poisson_gaussian_z1.1_q0.01_T10000')!.results.find((r) => r.method === 'rdp')!;
    const run = compose([{ privacy: step, times: 10000 }], { method: 'rdp' });
    expect(run.kind).toBe('approximate');
    expect(run.epsilon(ref.delta)).toBeGreaterThanOrEqual(ref.epsilon);
    expect(run.epsilon(ref.delta) / ref.epsilon - 1).toBeLessThan(1e-9);
    // ... which is looser than the privacy-loss distribution's figure.
    expect(compose([{ privacy: step, times: 10000 }]).epsilon(ref.delta)).toBeLessThan(0.95 * ref.epsilon);
    // Its certified range holds its own estimate: the accountant's lower end, its own upper end.
    const { lower, upper } = run.bounds(ref.delta);
    expect(upper).toBe(run.epsilon(ref.delta));
    expect(lower).toBeGreaterThan(0.9 * compose([{ privacy: step, times: 10000 }]).epsilon(ref.delta));
  });
});

describe('found by review: the certified range and the corners of the accountant', () => {
  const g = gaussianPrivacy({ scales: 1, sensitivity: [1] });

  it('a release composed with no release keeps its own epsilon, and its lower bound stays below it', () => {
    const withNoOp = compose([g, { event: { class_name: 'NoOpDpEvent' } }]);
    expect(withNoOp.epsilon(1e-5)).toBeLessThan(g.epsilon(1e-5) * (1 + 1e-6));
    expect(withNoOp.bounds(1e-5).lower).toBeLessThanOrEqual(g.epsilon(1e-5));
    // A Laplace coordinate whose ratio underflows is a (tiny) loss, not an empty composition.
    expect(laplacePrivacy({ scales: 1e308, sensitivity: [2 ** -400] }).epsilon(1e-5)).toBeGreaterThanOrEqual(0);
  });

  it('beyond mu = 1000 the Gaussian claims no lower end (its upper figure is the tail bound, 2e-6 above the exact one)', () => {
    // mpmath: the exact epsilon at mu = 1001, delta 1e-6 is 505757.68010; the tail bound gives 505758.678.
    const { lower, upper } = gaussianPrivacy({ scales: 1, sensitivity: [1001] }).bounds(1e-6);
    expect(lower).toBeLessThanOrEqual(505757.6801);
    expect(upper).toBeGreaterThanOrEqual(505757.6801);
  });

  it('rate 1 is the release itself; a pure release subsampled stays pure at ln(1 + q (e^epsilon - 1))', () => {
    const l = laplacePrivacy({ scales: 1, sensitivity: [1] });
    expect(subsample(l, { rate: 1 })).toBe(l);
    const half = subsample(l, { rate: 0.5 });
    expect(half.epsilon(0)).toBeGreaterThanOrEqual(Math.log(1 + 0.5 * Math.expm1(1)));
    expect(half.epsilon(0)).toBeLessThan(Math.log(1 + 0.5 * Math.expm1(1)) * (1 + 1e-13));
  });

  it('an answer of 0, or a grid too long to build, keeps what the coarser grids certified (never Infinity for a finite answer)', () => {
    // delta(0) of this pair is 0.383 (mpmath), so epsilon(0.9) is 0; it once ran 66 s and said Infinity.
    expect(subsample(g, { rate: 0.999999 }).epsilon(0.9)).toBe(0);
    expect(subsample(gaussianPrivacy({ scales: 0.2, sensitivity: [1] }), { rate: 1e-6 }).epsilon(1e-5)).toBe(0);
    // At delta 1e-10, below the PLD's rounding bound for 10^4 steps, the Renyi route answers (1.75).
    const run = compose([{ privacy: subsample(g, { rate: 1e-3 }), times: 10000 }]);
    expect(run.epsilon(1e-10)).toBeLessThan(2);
    expect(run.epsilon(1e-10)).toBeGreaterThan(run.epsilon(1e-5));
  });

  it('a subsampled Gaussian far apart (mu = 20) keeps the unsampled half of its mass in range: delta near q, not near 1', () => {
    // The remove pair's first law is (1 - q) Q + q P: its loss under Q was once piled on the lowest grid point.
    const d = subsample(gaussianPrivacy({ scales: 0.05, sensitivity: [1] }), { rate: 1e-6 }).delta(0.01);
    expect(d).toBeGreaterThanOrEqual(1e-6 * (1 - Math.exp(-1))); // at least the P part's share far above 0.01
    expect(d).toBeLessThan(2e-6); // measured 1.000000003e-6; it was 0.998
  });

  it('pure events read from JSON keep their pure figure: 1000 discrete Laplace releases at sensitivity 1 are 1000-DP', () => {
    const run = compose([{ event: { class_name: 'DiscreteLaplaceDpEvent', noise_parameter: 1, sensitivity: 1 }, times: 1000 }]);
    expect(run.epsilon(1e-10)).toBeLessThanOrEqual(1000 * (1 + 1e-12)); // once Infinity
    expect(run.epsilon(0)).toBeLessThanOrEqual(1000 * (1 + 1e-12));
  });

  it('compositions nested more than 1000 deep are refused with a clear error, not a stack overflow in a later call', () => {
    let p = compose([g]);
    for (let k = 1; k < 1000; k++) p = compose([p]);
    expect(p.epsilon(1e-5)).toBeCloseTo(g.epsilon(1e-5), 6);
    expect(() => compose([p, g])).toThrow(/compositions nest more than 1000 deep; compose the releases in one list/);
  });

  it('a polluted Object.prototype.event does not turn { privacy, times } into an event', () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.event = { class_name: 'NoOpDpEvent' };
    try {
      expect(compose([{ privacy: g, times: 2 }]).epsilon(1e-5)).toBeGreaterThan(g.epsilon(1e-5));
    } finally {
      delete proto.event;
    }
  });
});

describe('the certified range is within 1% from epsilon 0.01 to 100', () => {
  it.each([
    [
      'mixture, epsilon 0.006',
      () =>
        compose([
          { privacy: laplacePrivacy({ scales: 1000, sensitivity: [1] }), times: 5 },
          { privacy: gaussianPrivacy({ scales: 1000, sensitivity: [1] }), times: 3 },
        ]),
    ],
    [
      'subsampled Gaussian, epsilon 0.017',
      () => compose([{ privacy: subsample(gaussianPrivacy({ scales: 5, sensitivity: [1] }), { rate: 0.001 }), times: 1000 }]),
    ],
    [
      'mixture, epsilon 100',
      () =>
        compose([
          { privacy: laplacePrivacy({ scales: 0.5, sensitivity: [1] }), times: 40 },
          { privacy: gaussianPrivacy({ scales: 0.3, sensitivity: [1] }), times: 3 },
        ]),
    ],
  ] as const)('%s', (_, make) => {
    const { lower, upper } = make().bounds(1e-5);
    expect(lower).toBeGreaterThan(0);
    expect((upper - lower) / upper).toBeLessThan(0.01); // measured 6.5e-4, 2.1e-4, 1.1e-5
  });
});

describe('partition selection (thresholdedPrivacy)', () => {
  const inner = gaussianPrivacy({ scales: [4], sensitivity: [1] });
  const beta = 2.5e-7;
  const t = thresholdedPrivacy(inner, beta);

  it('adds beta to delta, and shifts epsilon by beta / (1 - beta) in the other direction', () => {
    const lambda = beta / (1 - beta);
    for (const eps of [0, 1e-8, 0.1, 0.5, 1, 2]) {
      const shifted = eps >= lambda ? inner.delta(eps - lambda) : inner.delta(0) + (lambda - eps);
      expect(t.delta(eps)).toBeGreaterThanOrEqual(Math.max(inner.delta(eps) + beta, shifted));
      expect(t.delta(eps)).toBeLessThan(Math.max(inner.delta(eps) + beta, shifted) * (1 + 1e-12));
    }
    for (const d of [1e-6, 1e-3]) {
      expect(t.delta(t.epsilon(d))).toBeLessThanOrEqual(d * (1 + 1e-9));
      expect(t.epsilon(d)).toBeGreaterThan(inner.epsilon(d));
    }
    expect(t.epsilon(beta)).toBe(Infinity); // nothing is left for the releases themselves
  });

  it('composes: the releases as usual, the deltas added up; no Renyi bound, no DpEvent', () => {
    const both = compose([t, { privacy: t, times: 2 }]);
    const expected = thresholdedPrivacy(compose([{ privacy: inner, times: 3 }]), 3 * beta);
    expect(both.epsilon(1e-5)).toBeCloseTo(expected.epsilon(1e-5), 10);
    expect(both.family).toBe('partition-selection');
    expect(t.rdp(2)).toBe(Infinity);
    expect(() => t.toDpEvent()).toThrow(/partition selection/);
  });
});
