import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  calibrateGaussian,
  calibrateLaplace,
  gaussianMu,
  laplacePrivacy,
  type Allocation,
  type Calibration,
  type GaussianCalibration,
} from '../../src/index.js';
import { wasm } from '../../src/wasm/loader.js';
import { EPS, exactSum, expectClose, expectNear, fixture, SAFETY } from '../helpers.js';

/** lambda_i = shape(i), i = 1..K, scaled to ||lambda||_2 = 1. */
function profile(K: number, shape: (i: number) => number): Float64Array {
  const raw = Float64Array.from({ length: K }, (_, k) => shape(k + 1));
  const norm = Math.sqrt(exactSum(raw.map((x) => x * x)));
  return raw.map((x) => x / norm);
}

const db = (x: number) => 10 * Math.log10(x);

/** sum_i (lambda_i / sigma_i)^2, the squared distance the Gaussian scales allow (0/0 = 0). */
function gaussianDistanceSquared(lambda: ArrayLike<number>, scales: ArrayLike<number>): number {
  return exactSum(Array.from(lambda, (l, i) => (l === 0 ? 0 : (l / scales[i]!) ** 2)));
}

/** sum_i lambda_i / beta_i, the epsilon the Laplace scales spend. */
function laplaceEpsilon(lambda: ArrayLike<number>, scales: ArrayLike<number>): number {
  return exactSum(Array.from(lambda, (l, i) => (l === 0 ? 0 : l / scales[i]!)));
}

describe('published numbers (docs/calibration.md, "Figures of merit")', () => {
  const shapes = { linear: (i: number) => i, quadratic: (i: number) => i * i, exponential: (i: number) => Math.exp(i) };

  it('Gaussian gains 1.3016, 1.7547, 9.2423 for K = 20, whatever epsilon and delta', () => {
    const expected = { linear: 1.3016, quadratic: 1.7547, exponential: 9.2423 };
    for (const [eps, delta] of [
      [0.5, 1e-6],
      [3, 1e-10],
      [0.01, 0.1],
    ] as const) {
      for (const [name, shape] of Object.entries(shapes)) {
        const g = calibrateGaussian({ sensitivity: profile(20, shape), epsilon: eps, delta });
        expect(g.gain.toFixed(4)).toBe(expected[name as keyof typeof expected].toFixed(4));
      }
    }
  });

  it('Laplace gains 0.546 dB, 1.39 dB, 7.609 dB for K = 20 (MSE, p = 2)', () => {
    const l = (shape: (i: number) => number) => calibrateLaplace({ sensitivity: profile(20, shape), epsilon: 0.5 }).gain;
    expect(db(l(shapes.linear)).toFixed(3)).toBe('0.546');
    expect(db(l(shapes.quadratic)).toFixed(2)).toBe('1.39');
    expect(db(l(shapes.exponential)).toFixed(3)).toBe('7.609');
  });

  it("the exponential profile's Gaussian MSE saturates at 21.477 dB as K grows", () => {
    const mseDb = (K: number) =>
      db(
        calibrateGaussian({
          sensitivity: profile(K, (i) => Math.exp(i - K)),
          epsilon: 0.5,
          delta: 1e-6,
        }).mse,
      );
    const values = [1, 2, 5, 10, 20, 50, 100, 200].map(mseDb);
    for (let k = 1; k < values.length; k++) expect(values[k]!).toBeGreaterThanOrEqual(values[k - 1]!);
    expect(values.at(-1)!.toFixed(3)).toBe('21.477');
    // K = 1: 1 / mu0^2, times (1 + 2^-36)^2 from SAFETY, which is (20 / ln 10) SAFETY in dB; plus
    // the rounding of two logarithms near 18.1 dB, where one ulp is 16 EPS: 64 EPS. Measured: the
    // SAFETY term less 6.5 EPS. (Earlier toBeCloseTo(_, 8): 5e-9.)
    expectNear(values[0]!, -20 * Math.log10(gaussianMu(0.5, 1e-6)), (20 / Math.LN10) * SAFETY + 64 * EPS, 'K = 1');
  });

  it('with a uniform profile, Laplace has a larger MSE than Gaussian exactly from K = 9', () => {
    const laplaceWorse = (K: number) => {
      const sensitivity = profile(K, () => 1);
      return calibrateLaplace({ sensitivity, epsilon: 0.5 }).mse > calibrateGaussian({ sensitivity, epsilon: 0.5, delta: 1e-6 }).mse;
    };
    const firstWorse = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12].find(laplaceWorse);
    expect(firstWorse).toBe(9);
  });

  it("the journal's two-dimensional MAE table (lambda = (0.15, 0.85), p = 1)", () => {
    const expected = [3.4283, 1.7141, 1.1428, 0.8571, 0.6857, 0.5714];
    [0.5, 1, 1.5, 2, 2.5, 3].forEach((eps, k) => {
      const optimal = calibrateLaplace({ sensitivity: [0.15, 0.85], epsilon: eps, errorPower: 1 });
      const iid = calibrateLaplace({ sensitivity: [0.15, 0.85], epsilon: eps, errorPower: 1, allocation: 'iid' });
      expect(optimal.error.toFixed(4)).toBe(expected[k]!.toFixed(4));
      // 2 b with b = Delta_1 / eps raised by SAFETY, plus a few roundings (measured SAFETY + 0.5 EPS).
      expectClose(iid.error, 2 / eps, SAFETY + 4 * EPS, `iid MAE at eps ${eps}`);
    });
  });
});

interface CalibrateCase {
  name: string;
  mechanism: 'gaussian' | 'laplace';
  allocation: Allocation;
  sensitivity: number[];
  epsilon: number;
  delta?: number;
  errorPower: number;
  weights: number[] | null;
  expected: { mu?: number; scales: number[]; mse: number; error: number; gain: number };
}

describe('allocations against mpmath (test/fixtures/calibrate.json)', () => {
  const { cases } = fixture<{ cases: CalibrateCase[] }>('calibrate.json');
  /**
   * gaussianMu against the exact root: docs/accounting.md, "The safe side", measures 2.9e-14 (130 EPS)
   * below the root for typical eps and delta, as here: 128 EPS (measured 30.8 EPS). Every scale is
   * proportional to 1 / mu, so it carries this error too.
   */
  const MU = 128 * EPS;

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const common = {
      sensitivity: c.sensitivity,
      epsilon: c.epsilon,
      allocation: c.allocation,
      errorPower: c.errorPower,
      ...(c.weights ? { weights: c.weights } : {}),
    };
    const got: Calibration = c.mechanism === 'gaussian' ? calibrateGaussian({ ...common, delta: c.delta! }) : calibrateLaplace(common);
    const mu = c.expected.mu === undefined ? 0 : MU; // Laplace scales do not depend on mu
    if (c.expected.mu !== undefined) expectClose((got as GaussianCalibration).mu, c.expected.mu, MU, 'mu');
    c.expected.scales.forEach((s, i) => {
      // Scales are never below the exact value, and above it by the safety margin, mu's error and
      // a few roundings (8 EPS) only. Measured: SAFETY + 33 EPS, of which mu's error is 30.8 EPS.
      const ratio = got.scales[i]! / s;
      if (s === 0) expect(got.scales[i]).toBe(0);
      else expect(ratio - 1, `scale ${i}: expected ${s}, got ${got.scales[i]}`).toBeGreaterThanOrEqual(0);
      if (s !== 0) expect(ratio - 1, `scale ${i}`).toBeLessThanOrEqual(SAFETY + mu + 8 * EPS);
    });
    // The MSE and E_p carry the scales' errors squared and to the power p; then the sums over
    // K = 20 terms and the powers round: 8 EPS and 16 EPS (measured, with mu's own error in place
    // of mu: 1.5 EPS and 8.3 EPS beyond).
    expectClose(got.mse, c.expected.mse, 2 * (SAFETY + mu) + 8 * EPS, 'mse');
    expectClose(got.error, c.expected.error, c.errorPower * (SAFETY + mu) + 16 * EPS, 'error');
    // SAFETY and mu cancel in the ratio iid / optimal; left are two plain sums of 20 terms (at most
    // (n - 1) u = 9.5 EPS each) and a few powers: 32 EPS (measured 4.45 EPS).
    expectClose(got.gain, c.expected.gain, 32 * EPS, 'gain');
  });
});

describe('privacy and optimality over random profiles (fast-check)', () => {
  const magnitude = fc.oneof(
    fc.constant(0),
    fc.double({ min: -30, max: 30, noNaN: true }).map((e) => 10 ** e),
  );
  const profileArb = fc.array(magnitude, { minLength: 1, maxLength: 40 }).filter((l) => l.some((x) => x > 0));
  const logUniform = (lo: number, hi: number) => fc.double({ min: Math.log10(lo), max: Math.log10(hi), noNaN: true }).map((e) => 10 ** e);
  const allocation = fc.constantFrom<Allocation>('optimal', 'iid', 'spr');
  const errorPower = fc.oneof(fc.constant(2), fc.constant(1), fc.double({ min: 0.1, max: 8, noNaN: true }));
  const withWeights = (lambda: number[]) =>
    fc.option(fc.array(logUniform(1e-3, 1e3), { minLength: lambda.length, maxLength: lambda.length }), { nil: undefined });

  it('every Gaussian allocation meets sum (lambda/sigma)^2 <= mu0^2, and optimal is tight', () => {
    fc.assert(
      fc.property(
        profileArb.chain((l) => fc.tuple(fc.constant(l), withWeights(l))),
        fc.oneof(fc.constant(0), logUniform(1e-6, 1000)),
        logUniform(1e-100, 0.9),
        allocation,
        errorPower,
        ([sensitivity, weights], epsilon, delta, alloc, p) => {
          const g = calibrateGaussian({ sensitivity, epsilon, delta, allocation: alloc, errorPower: p, ...(weights ? { weights } : {}) });
          const distance2 = gaussianDistanceSquared(sensitivity, g.scales);
          expect(distance2).toBeLessThanOrEqual(g.mu * g.mu);
          // Tight: SAFETY on every scale leaves mu^2 / (1 + 2^-36)^2, 2 SAFETY below; the library's
          // sums over up to 40 terms and its powers round: 256 EPS (measured 2 SAFETY + 70.5 EPS).
          if (alloc === 'optimal') expect(distance2).toBeGreaterThanOrEqual(g.mu * g.mu * (1 - (2 * SAFETY + 256 * EPS)));
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
  });

  it('every Laplace allocation meets sum lambda/beta <= epsilon, and optimal is tight', () => {
    fc.assert(
      fc.property(
        profileArb.chain((l) => fc.tuple(fc.constant(l), withWeights(l))),
        logUniform(1e-6, 1000),
        allocation,
        errorPower,
        ([sensitivity, weights], epsilon, alloc, p) => {
          const l = calibrateLaplace({ sensitivity, epsilon, allocation: alloc, errorPower: p, ...(weights ? { weights } : {}) });
          const spent = laplaceEpsilon(sensitivity, l.scales);
          expect(spent).toBeLessThanOrEqual(epsilon);
          // Tight: SAFETY on every scale, and rounding: 64 EPS (measured SAFETY + 9 EPS).
          if (alloc === 'optimal') expect(spent).toBeGreaterThanOrEqual(epsilon * (1 - (SAFETY + 64 * EPS)));
        },
      ),
      { numRuns: 300, seed: 20261124 },
    );
  });

  it("the optimal error never exceeds iid's or spr's, and no private perturbation beats it", () => {
    fc.assert(
      fc.property(
        profileArb.chain((l) =>
          fc.tuple(fc.constant(l), withWeights(l), fc.array(fc.double({ min: -0.3, max: 0.3, noNaN: true }), { minLength: l.length, maxLength: l.length })),
        ),
        fc.constantFrom('gaussian', 'laplace'),
        errorPower,
        ([sensitivity, weights, jitter], mechanism, p) => {
          const run = (alloc: Allocation) =>
            mechanism === 'gaussian'
              ? calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6, allocation: alloc, errorPower: p, ...(weights ? { weights } : {}) })
              : calibrateLaplace({ sensitivity, epsilon: 1, allocation: alloc, errorPower: p, ...(weights ? { weights } : {}) });
          const optimal = run('optimal');
          // The allocations tie for uniform profiles, so each comparison allows for rounding: the
          // scales (each within a few EPS) to the power p <= 8, summed over up to 40 terms: 64 EPS
          // (measured at most 4 EPS).
          const ROUNDING = 64 * EPS;
          expect(optimal.error).toBeLessThanOrEqual(run('iid').error * (1 + ROUNDING));
          expect(optimal.error).toBeLessThanOrEqual(run('spr').error * (1 + ROUNDING));
          expect(optimal.gain).toBeGreaterThanOrEqual(1 - ROUNDING);
          // Perturb the scales, rescale them to spend exactly the same privacy, compare the error.
          const perturbed = Array.from(optimal.scales, (s, i) => s * Math.exp(jitter[i]!));
          const spentOptimal = mechanism === 'gaussian' ? gaussianDistanceSquared(sensitivity, optimal.scales) : laplaceEpsilon(sensitivity, optimal.scales);
          const spentPerturbed = mechanism === 'gaussian' ? gaussianDistanceSquared(sensitivity, perturbed) : laplaceEpsilon(sensitivity, perturbed);
          const rescale = mechanism === 'gaussian' ? Math.sqrt(spentPerturbed / spentOptimal) : spentPerturbed / spentOptimal;
          const w = weights ?? sensitivity.map(() => 1);
          const errorSum = (scales: ArrayLike<number>) => exactSum(Array.from(scales, (s, i) => w[i]! * s ** p));
          expect(errorSum(perturbed.map((s) => s * rescale))).toBeGreaterThanOrEqual(errorSum(optimal.scales) * (1 - ROUNDING));
        },
      ),
      { numRuns: 200, seed: 20261125 },
    );
  });
});

describe('edge cases', () => {
  it('a profile of zeros needs no noise: zero scales, zero error, gain 1', () => {
    for (const allocation of ['optimal', 'iid', 'spr'] as const) {
      const g = calibrateGaussian({ sensitivity: [0, 0, 0], epsilon: 1, delta: 1e-5, allocation });
      expect(Array.from(g.scales)).toEqual([0, 0, 0]);
      expect([g.mse, g.error, g.gain]).toEqual([0, 0, 1]);
      const l = calibrateLaplace({ sensitivity: new Float64Array(4), epsilon: 1, allocation });
      expect(Array.from(l.scales)).toEqual([0, 0, 0, 0]);
      expect([l.mse, l.error, l.gain]).toEqual([0, 0, 1]);
    }
  });

  it('optimal gives zero noise to coordinates with zero sensitivity, iid does not', () => {
    const g = calibrateGaussian({ sensitivity: [0, 1, 0, 2], epsilon: 1, delta: 1e-5 });
    expect(g.scales[0]).toBe(0);
    expect(g.scales[2]).toBe(0);
    expect(calibrateGaussian({ sensitivity: [0, 1], epsilon: 1, delta: 1e-5, allocation: 'iid' }).scales[0]).toBeGreaterThan(0);
  });

  it('p = 2 Gaussian optimum is sigma_i^2 = Delta_1 lambda_i / mu0^2 with MSE Delta_1^2 / mu0^2', () => {
    const sensitivity = [0.5, 1, 2, 4];
    const g = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-5 });
    const mu = gaussianMu(1, 1e-5);
    // SAFETY on each scale (2 SAFETY in the MSE), plus a few roundings: 4 EPS and 8 EPS
    // (measured SAFETY + 0.27 EPS and 2 SAFETY - 0.4 EPS). Earlier: 2 SAFETY and 3 SAFETY.
    sensitivity.forEach((l, i) => {
      expectClose(g.scales[i]!, Math.sqrt(7.5 * l) / mu, SAFETY + 4 * EPS, `sigma_${i}`);
    });
    expectClose(g.mse, 7.5 ** 2 / mu ** 2, 2 * SAFETY + 8 * EPS, 'mse');
    expect(g.mu).toBe(mu);
  });

  it('accepts a Float64Array and an array alike, and does not modify them', () => {
    const array = [3, 1, 2];
    const typed = Float64Array.from(array);
    const a = calibrateLaplace({ sensitivity: array, epsilon: 1 });
    const b = calibrateLaplace({ sensitivity: typed, epsilon: 1 });
    expect(Array.from(a.scales)).toEqual(Array.from(b.scales));
    expect(array).toEqual([3, 1, 2]);
    expect(Array.from(typed)).toEqual([3, 1, 2]);
  });

  it('throws instead of returning overflowing scales', () => {
    expect(() => calibrateGaussian({ sensitivity: [2 ** 400], epsilon: 0, delta: 1e-300 })).toThrow(RangeError);
  });
});

describe('long vectors', () => {
  it('K = 1e7 streams through wasm without growing its memory', () => {
    const K = 1e7;
    const sensitivity = new Float64Array(K);
    for (let i = 0; i < K; i++) sensitivity[i] = 1 / (1 + (i % 1000));
    const memory = wasm().memory;
    const before = memory.buffer.byteLength;
    const g = calibrateGaussian({ sensitivity, epsilon: 1, delta: 1e-6 });
    const l = calibrateLaplace({ sensitivity, epsilon: 1, errorPower: 1 });
    expect(memory.buffer.byteLength).toBe(before);
    expect(before).toBeLessThanOrEqual(1 << 20);
    expect(g.scales.length).toBe(K);
    expect(gaussianDistanceSquared(sensitivity, g.scales)).toBeLessThanOrEqual(g.mu ** 2);
    expect(laplaceEpsilon(sensitivity, l.scales)).toBeLessThanOrEqual(1);
    // Chunk boundaries change nothing: coordinate i depends only on lambda_i.
    expect(g.scales[5]).toBe(g.scales[5 + 1000 * 9000]);
  });
});

describe('Laplace noise for (epsilon, delta), by the accountant', () => {
  const ones = new Array(100).fill(1);

  it("100 coordinates at b = 10: dp_accounting's epsilon at delta 1e-6 calibrates back to b = 10, within the search's 0.1%", () => {
    // dp_accounting 0.6.0, 100 Laplace releases with b = 10, PLD at interval 1e-5 (test/fixtures/accounting.json).
    const reference = fixture<{ cases: { id: string; results: { method: string; value_discretization_interval?: number; epsilon: number }[] }[] }>(
      'accounting.json',
    )
      .cases.find((c) => c.id === 'laplace_b10_T100')!
      .results.find((r) => r.method === 'pld' && r.value_discretization_interval === 1e-5)!.epsilon; // 4.69267
    const c = calibrateLaplace({ sensitivity: ones, epsilon: reference, delta: 1e-6 });
    expect(c.target).toEqual({ epsilon: reference, delta: 1e-6 });
    expect(c.scales[0]! / 10 - 1).toBeGreaterThanOrEqual(0); // never below the scale that meets it
    expect(c.scales[0]! / 10 - 1).toBeLessThan(1e-3); // measured 4.9e-4
  });

  it('meets the budget by the accountant, to the last 0.1%, with far less noise than pure epsilon on a long profile', () => {
    const profile = Array.from({ length: 1000 }, (_, i) => 1 / (1 + (i % 100)));
    const c = calibrateLaplace({ sensitivity: profile, epsilon: 1, delta: 1e-6 });
    expect(laplacePrivacy({ scales: c.scales, sensitivity: profile }).epsilon(1e-6)).toBeLessThanOrEqual(1);
    const smaller = c.scales.map((b) => b * (1 - 2e-3));
    expect(laplacePrivacy({ scales: smaller, sensitivity: profile }).epsilon(1e-6)).toBeGreaterThan(1);
    // Pure 1-DP needs every coordinate at its largest loss: 26 times the MSE (measured 26.3).
    expect(calibrateLaplace({ sensitivity: profile, epsilon: 1 }).mse / c.mse).toBeGreaterThan(20);
    // The allocation's shape is kept: the ratios between scales are the pure calibration's.
    const pure = calibrateLaplace({ sensitivity: profile, epsilon: 2 }).scales;
    expect(c.scales[5]! / c.scales[0]!).toBeCloseTo(pure[5]! / pure[0]!, 12);
  });

  it('refuses groups with delta, and epsilon 0', () => {
    expect(() => calibrateLaplace({ groups: { sizes: [2, 3], sensitivity: [1, 1] }, epsilon: 1, delta: 1e-6 })).toThrow(/not with `groups`/);
    expect(() => calibrateLaplace({ sensitivity: ones, epsilon: 0, delta: 1e-6 })).toThrow(/`epsilon` must be > 0/);
  });
});
