// The combinators (src/accounting/combinators.ts): compose, subsample and dp_accounting's DpEvent JSON.
import { describe, expect, it } from 'vitest';
import {
  type DpEventJson,
  calibrateGaussian,
  compose,
  gaussianEpsilon,
  gaussianMechanism,
  gaussianMu,
  gaussianPrivacy,
  laplacePrivacy,
  subsample,
} from '../../src/index.js';
import { EPS, expectClose, fixture, ROUND_UP } from '../helpers.js';

/**
 * gaussianPrivacy rounds the sum up (ROUND_UP) before the square root and mu again after it:
 * ROUND_UP / 2 + ROUND_UP = 6 EPS above the exact value; with the roundings of the terms, the sum
 * and the square root, 8 EPS.
 */
const MU = 8 * EPS;

describe('compose', () => {
  it('Gaussian releases compose exactly: mu = sqrt(sum mu_j^2), as one release of all the scales', () => {
    const a = gaussianPrivacy({ scales: [1, 2], sensitivity: [1, 1] });
    const b = gaussianPrivacy({ scales: [3], sensitivity: [2] });
    const both = compose([a, b]);
    const joint = gaussianPrivacy({ scales: [1, 2, 3], sensitivity: [1, 1, 2] });
    expect(both.kind).toBe('gdp');
    expect(both.form).toBe('composition');
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
    expect(m.form).toBe('composition');
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
    expect(() => compose([{ kind: 'pure', form: 'noise', noise: 'laplace', epsilonPure: 0.001, epsilon: () => 0.001, delta: () => 0 } as never])).toThrow(
      refused,
    );
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
