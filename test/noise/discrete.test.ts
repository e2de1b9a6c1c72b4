// Grid mode: exact discrete Laplace and discrete Gaussian samplers (fast path and exact path),
// the rounding to the grid, and the grid-mode mechanisms (docs/math.md, "Floating-point safety").
import { afterEach, describe, expect, it } from 'vitest';
import { compose, createRng, gaussianDelta, gaussianMechanism, gaussianPrivacy, laplaceMechanism, laplacePrivacy } from '../../src/index.js';
import { zcdpDelta } from '../../src/accounting/zcdp.js';
import { roundHalfUp } from '../../src/mechanisms/grid.js';
import { cryptoStream } from '../../src/noise/random.js';
import { setPoolWordsForTesting } from '../../src/wasm/host.js';
import { wasm, type WasmExports } from '../../src/wasm/loader.js';
import { estimateDelta, gaussianLosses, laplaceLosses } from '../audit.js';
import { EPS, expectClose, lcg, ROUND_UP, SAFETY } from '../helpers.js';

type DiscreteKernel = 'discreteLaplaceSamples' | 'discreteGaussianSamples';
const w = wasm();
const chunk = w.sampleChunkLength();

/** n draws of a kernel (noise only, grid 1) from a seeded stream; with `exact`, every draw through the exact path. */
function seededDraws(kernel: DiscreteKernel, scale: number, n: number, { seed = 0xd15c7e7en, exact = false, flags = 0 } = {}): Float64Array {
  new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([seed, 0x9e3779b97f4a7c15n]);
  w.useSeededExtras();
  w.setExactOnly(exact);
  try {
    return kernelLoop(w, kernel, scale, n, (start, m) => w.seededWords(start, m), flags);
  } finally {
    w.setExactOnly(false);
  }
}

/** n draws with the CSPRNG (primary words and pool), the pool refilled `poolWords` at a time (0: whole). */
function csprngDraws(kernel: DiscreteKernel, scale: number, n: number, poolWords = 0): Float64Array {
  setPoolWordsForTesting(poolWords);
  try {
    w.usePoolExtras(0);
    cryptoStream.begin(w);
    return kernelLoop(w, kernel, scale, n, (start, m) => cryptoStream.words(w, start, m));
  } finally {
    setPoolWordsForTesting(0);
  }
}

function kernelLoop(module: WasmExports, kernel: DiscreteKernel, scale: number, n: number, words: (start: number, m: number) => void, flags = 0): Float64Array {
  const out = new Float64Array(n);
  for (let start = 0; start < n; start += chunk) {
    const m = Math.min(chunk, n - start);
    words(start, m);
    module[kernel](start, m, flags, scale, 1);
    out.set(new Float64Array(module.memory.buffer, module.valuesPointer(), m), start);
  }
  return out;
}

/** P(Y <= k) of the discrete Laplace P(y) proportional to exp(-|y| / t). */
function laplaceCdf(t: number): (k: number) => number {
  const q = Math.exp(-1 / t);
  return (k) => (k >= 0 ? 1 - q ** (k + 1) / (1 + q) : q ** -k / (1 + q));
}

/** P(Y <= k) of the discrete Gaussian P(y) proportional to exp(-y^2 / (2 s)): summed, or the normal CDF at k + 1/2 for s >= 2500 (equal to far below 1e-100). */
function gaussianCdf(s: number): (k: number) => number {
  const sigma = Math.sqrt(s);
  if (sigma >= 50) return (k) => 0.5 * erfcApprox(-(k + 0.5) / (sigma * Math.SQRT2));
  const reach = Math.ceil(40 * sigma) + 40;
  const pmf = Array.from({ length: 2 * reach + 1 }, (_, i) => Math.exp(-((i - reach) ** 2) / (2 * s)));
  const total = pmf.reduce((a, b) => a + b, 0);
  const cdf = pmf.map(
    (
      (sum) => (p: number) =>
        (sum += p / total)
    )(0),
  );
  return (k) => (k < -reach ? 0 : k >= reach ? 1 : cdf[k + reach]!);
}

/** erfc via the complementary normal CDF of the library would be circular here; this is W. J. Cody's rational fit's accuracy class (1e-15) by continued fraction for the tails. */
function erfcApprox(x: number): number {
  // For the tests' bins only: Abramowitz-Stegun 7.1.26 is too coarse, so integrate the density.
  if (x < 0) return 2 - erfcApprox(-x);
  if (x > 27) return 0;
  const n = 2000;
  const h = (27 - x) / n;
  let sum = 0;
  for (let i = 0; i <= n; i++) sum += (i === 0 || i === n ? 1 : i % 2 ? 4 : 2) * Math.exp(-((x + i * h) ** 2));
  return ((2 / Math.sqrt(Math.PI)) * h * sum) / 3;
}

/**
 * Pearson chi-square of integer draws against a CDF, over bins of consecutive integers cut from
 * the left once each holds at least `minimum` expected draws (the tails are the outer bins).
 */
function chiSquare(draws: Float64Array, cdf: (k: number) => number, minimum = Math.max(80, draws.length / 40)): { chi2: number; df: number } {
  const n = draws.length;
  const sorted = Float64Array.from(draws).sort();
  const lo = sorted[0]!;
  const hi = sorted[n - 1]!;
  const step = Math.max(1, Math.floor((hi - lo) / 4000));
  const edges: number[] = []; // bin b is (edges[b - 1], edges[b]]
  let below = 0;
  for (let k = lo; k < hi; k += step) {
    const c = cdf(k);
    if (n * (c - below) >= minimum && n * (1 - c) >= minimum) {
      edges.push(k);
      below = c;
    }
  }
  let chi2 = 0;
  let index = 0;
  let previous = 0;
  for (let b = 0; b <= edges.length; b++) {
    const top = b < edges.length ? edges[b]! : Infinity;
    let count = 0;
    while (index < n && sorted[index]! <= top) {
      count++;
      index++;
    }
    const c = b < edges.length ? cdf(top) : 1;
    chi2 += (count - n * (c - previous)) ** 2 / (n * (c - previous));
    previous = c;
  }
  return { chi2, df: edges.length };
}

/** Statistical: rejects when chi^2 is more than 5 standard deviations (sqrt(2 df)) above its mean df. */
const rejects = ({ chi2, df }: { chi2: number; df: number }) => chi2 > df + 5 * Math.sqrt(2 * df);

/** Chi-square on the draws at the true scale passes, and at a scale 5% off either way fails (power). */
function expectLaw(draws: Float64Array, cdfAt: (scale: number) => (k: number) => number, scale: number, where: string): void {
  expect(draws.every(Number.isInteger), `${where}: integers`).toBe(true);
  expect(rejects(chiSquare(draws, cdfAt(scale))), `${where}: matches`).toBe(false);
  expect(rejects(chiSquare(draws, cdfAt(scale * 1.05))), `${where}: 5% wider is rejected`).toBe(true);
  expect(rejects(chiSquare(draws, cdfAt(scale / 1.05))), `${where}: 5% narrower is rejected`).toBe(true);
}

// Laplace scales t and Gaussian variances s covering every branch: tiny, t < 16, t in the
// direct range below 32, the block decomposition from 32 (b >= 1) up to 2^40 grid steps.
const LAPLACE_SCALES = [0.7, 1, 3, 8, 31.9, 32, 1000.5, 3e5];
const GAUSSIAN_VARIANCES = [0.4, 1, 2, 10, 400, 1e6 + 0.5, 1e10];

describe('exact discrete Laplace and Gaussian samplers (fast path)', () => {
  it.each(LAPLACE_SCALES)('discrete Laplace, t = %d: chi-square on 1e6 draws, and a scale 5% off is rejected', (t) => {
    expectLaw(seededDraws('discreteLaplaceSamples', t, 1_000_000), laplaceCdf, t, `t = ${t}`);
  });

  it.each(GAUSSIAN_VARIANCES)('discrete Gaussian, s = %d: chi-square on 1e6 draws, and a variance 5% off is rejected', (s) => {
    expectLaw(seededDraws('discreteGaussianSamples', s, 1_000_000), gaussianCdf, s, `s = ${s}`);
  });

  it('gives the same integers for every chunk split, exactly 0 for scale 0, and huge scales stay finite integers', () => {
    const all = seededDraws('discreteLaplaceSamples', 5, 20_000);
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0xd15c7e7en, 0x9e3779b97f4a7c15n]);
    w.useSeededExtras();
    w.seededWords(1000, 700);
    w.discreteLaplaceSamples(1000, 700, 0, 5, 1);
    expect(Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), 700))).toEqual(Array.from(all.subarray(1000, 1700)));
    expect(seededDraws('discreteLaplaceSamples', 0, 100).every((y) => y === 0)).toBe(true);
    expect(seededDraws('discreteGaussianSamples', 0, 100).every((y) => y === 0)).toBe(true);
    for (const y of seededDraws('discreteLaplaceSamples', 2 ** 40, 10_000)) expect(Number.isSafeInteger(y)).toBe(true);
  });
});

describe('the exact path: the same function of the random words, to the last draw', () => {
  it.each([
    ['discreteLaplaceSamples', [0.01, 0.7, 1, 3.7, 31.9, 32, 1000.5, 2 ** 40]],
    ['discreteGaussianSamples', [0.01, 0.5, 2, 1e6, 2 ** 79]],
  ] as const)('%s: every draw forced through the exact path equals the fast path on the same words', (kernel, scales) => {
    for (const scale of scales) {
      const fast = seededDraws(kernel, scale, 600, { seed: 77n });
      const exact = seededDraws(kernel, scale, 600, { seed: 77n, exact: true });
      expect(Array.from(exact), `${kernel} at ${scale}`).toEqual(Array.from(fast));
    }
  });

  it.each([
    ['discreteLaplaceSamples', [0.7, 1, 31.9, 32, 1000.5, 2 ** 40]],
    ['discreteGaussianSamples', [0.5, 2, 1e6, 2 ** 79]],
  ] as const)('%s: fixed work (no noise-dependent shortcut) changes the work only, never a draw', (kernel, scales) => {
    const FIXED_WORK = 4;
    for (const scale of scales) {
      const fixed = seededDraws(kernel, scale, 20_000, { seed: 9n, flags: FIXED_WORK });
      expect(Array.from(fixed), `${kernel} at ${scale}`).toEqual(Array.from(seededDraws(kernel, scale, 20_000, { seed: 9n })));
    }
  });

  it.each([
    ['discreteLaplaceSamples', 1, laplaceCdf],
    ['discreteLaplaceSamples', 40.5, laplaceCdf],
    ['discreteGaussianSamples', 2, gaussianCdf],
  ] as const)('%s at %d: forced through the exact path, chi-square on 60000 draws with power', (kernel, scale, cdfAt) => {
    expectLaw(seededDraws(kernel, scale, 60_000, { seed: 5n, exact: true }), cdfAt, scale, `exact ${kernel} ${scale}`);
  });

  it('hands a draw over mid-way (remainder and acceptance stages) and finishes it as the exact path does from the start', () => {
    // Pool words placed on a threshold (to double precision, within the fast path's margin)
    // force a hand-over in the middle of a draw.
    const LOW = 0x7fffffffffffffffn;
    const onThreshold = (high: bigint, shift: number, x: number) => (high << BigInt(64 - shift)) | BigInt(Math.floor(Math.exp(-x) * 2 ** (64 - shift)));
    const trialWord = (u: number) => BigInt(Math.floor(u * 2 ** 63)) & LOW; // sign 0: no redraw of 0
    const noise = [0x0123456789abcdefn, 0xfedcba9876543210n, 0x5555aaaa5555aaaan, 0x3c3c3c3c3c3c3c3cn];
    const cases: Array<[string, DiscreteKernel, number, bigint, bigint]> = [
      // t = 1000.5: b = 5, B = 32; the L word's V sits on exp(-17 / t).
      ['Laplace remainder', 'discreteLaplaceSamples', 1000.5, trialWord(0.4), onThreshold(17n, 5, 17 / 1000.5)],
      // s = 1e6: T = 1001, b = 5; the proposal's L word sits on exp(-17 / 1001).
      ['Gaussian remainder', 'discreteGaussianSamples', 1e6, trialWord(0.4), onThreshold(17n, 5, 17 / 1001)],
      // s = 2: T = 2, U = 0.18 gives Y = floor(-2 ln U) = 3, gamma = (3 - 1)^2 / 4 = 1.
      ['Gaussian acceptance', 'discreteGaussianSamples', 2, trialWord(0.18), onThreshold(0n, 0, 1)],
    ];
    for (const [stage, kernel, scale, primary, first] of cases) {
      const pool = [first, ...noise];
      const run = (exact: boolean) => {
        w.setExactOnly(exact);
        new Float64Array(w.memory.buffer, w.exactPointer(), 7).fill(-7); // shows whether a hand-over happened
        new BigUint64Array(w.memory.buffer, w.randomPointer(), 1).set([primary]);
        new BigUint64Array(w.memory.buffer, w.extraPointer(), pool.length).set(pool);
        w.usePoolExtras(pool.length);
        w[kernel](0, 1, 0, scale, 1);
        w.setExactOnly(false);
        const handedOver = new Float64Array(w.memory.buffer, w.exactPointer(), 7)[6] !== -7;
        return [new Float64Array(w.memory.buffer, w.valuesPointer(), 1)[0]!, handedOver] as const;
      };
      const [fast, handedOver] = run(false);
      expect(handedOver, `${stage}: the fast path could not decide`).toBe(true);
      expect(fast, stage).toBe(run(true)[0]);
    }
    w.usePoolExtras(0);
  });

  it.each([1, 2, 3, 4, 5])('pool of %i words: discrete Laplace t = 1 and discrete Gaussian s = 2 keep their law (chi-square with power)', (poolWords) => {
    expectLaw(csprngDraws('discreteLaplaceSamples', 1, 100_000, poolWords), laplaceCdf, 1, `Laplace, pool ${poolWords}`);
    expectLaw(csprngDraws('discreteGaussianSamples', 2, 100_000, poolWords), gaussianCdf, 2, `Gaussian, pool ${poolWords}`);
  });

  it('the CSPRNG path: 4e7 draws of discrete Laplace t = 1 and discrete Gaussian s = 2 within 4 SE of the PMF at every |y| <= 6', () => {
    for (const [kernel, cdf] of [
      ['discreteLaplaceSamples', laplaceCdf(1)],
      ['discreteGaussianSamples', gaussianCdf(2)],
    ] as const) {
      const n = 40_000_000;
      const counts = new Map<number, number>();
      for (let done = 0; done < n; done += 1_000_000) {
        for (const y of csprngDraws(kernel, kernel === 'discreteLaplaceSamples' ? 1 : 2, 1_000_000)) {
          if (Math.abs(y) <= 6) counts.set(Math.abs(y), (counts.get(Math.abs(y)) ?? 0) + 1);
        }
      }
      for (let y = 0; y <= 6; y++) {
        const p = y === 0 ? cdf(0) - cdf(-1) : 2 * (cdf(y) - cdf(y - 1));
        const se = Math.sqrt(n * p * (1 - p));
        expect(Math.abs((counts.get(y) ?? 0) - n * p), `${kernel}, |y| = ${y}`).toBeLessThan(4 * se);
      }
    }
  });
});

describe('rounding to the grid', () => {
  it('the kernels round half up exactly, as roundHalfUp, at the awkward doubles', () => {
    const xs = [
      0.5,
      1.5,
      -0.5,
      -1.5,
      2.5,
      0.49999999999999994,
      -0.49999999999999994,
      2 ** 52 + 1,
      -(2 ** 52) - 1,
      4503599627370495.5,
      -4503599627370495.5,
      1e300,
      7.000000000000001,
      -2.9999999999999996,
    ];
    const values = new Float64Array(w.memory.buffer, w.valuesPointer(), xs.length);
    values.set(xs);
    w.seededWords(0, xs.length);
    w.discreteLaplaceSamples(0, xs.length, 2, 0, 1); // ADD, scale 0: rounding only
    expect(Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), xs.length))).toEqual(xs.map(roundHalfUp));
    expect(xs.map(roundHalfUp)).toEqual([1, 2, 0, -1, 3, 0, 0, 2 ** 52 + 1, -(2 ** 52) - 1, 4503599627370496, -4503599627370495, 1e300, 7, -3]);
  });

  it('neighbours at most lambda apart round at most ceil(lambda / g) steps apart (random pairs, adversarial offsets)', () => {
    const random = lcg(12345);
    for (let trial = 0; trial < 200_000; trial++) {
      const g = 2 ** Math.floor(random() * 20 - 10);
      const lambda = random() < 0.3 ? g * Math.floor(random() * 5 + 1) : g * random() * 8; // whole steps too
      // Half the fractions exactly 1/2 (the rounding boundary), half uniform.
      // biome-ignore lint/complexity/useMathMinMax: two different draws, not a clamp
      const a = (Math.floor(random() * 1000) + (random() < 0.5 ? 0.5 : random())) * g;
      const b = a + (random() < 0.5 ? lambda : lambda * random()) * (random() < 0.5 ? 1 : -1);
      expect(Math.abs(roundHalfUp(a / g) - roundHalfUp(b / g)), `g ${g}, lambda ${lambda}, a ${a}, b ${b}`).toBeLessThanOrEqual(Math.ceil(lambda / g));
    }
  });
});

describe('gaussianMechanism in grid mode (the default; zCDP accounting)', () => {
  const sensitivity = [0.3, 1, 2.5, 0];

  it('the zCDP conversion is never tighter than the exact continuous Gaussian curve', () => {
    for (const mu of [0.05, 0.3, 1, 3]) {
      for (const eps of [0, 0.2, 1, 5]) expect(zcdpDelta((mu * mu) / 2, eps)).toBeGreaterThanOrEqual(gaussianDelta(mu, eps));
    }
  });

  it('is the default, releases multiples of the grid and guarantees at least the requested (epsilon, delta)', () => {
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, grid: 1 / 64 });
    expect(m.mode).toBe('grid');
    expect(m.privacy.kind).toBe('zcdp');
    expect(m.privacy.delta(1)).toBeLessThanOrEqual(1e-6);
    // Tight: SAFETY on the scales puts rho 2 SAFETY below the largest rho that converts to
    // (1, 1e-6), which lowers delta by the elasticity d ln delta / d ln rho = rho alpha (alpha - 1)
    // at the optimal order (11.2) times that: 22.5 SAFETY (measured); 32 SAFETY. Earlier: 0.9e-6.
    expect(m.privacy.delta(1)).toBeGreaterThan(1e-6 * (1 - 32 * SAFETY));
    expect(m.privacy.epsilon(1e-6)).toBeLessThanOrEqual(1);
    // ceil(lambda / g) steps: 0.3 -> 20/64, 1 -> 64/64, 2.5 -> 160/64, 0 stays 0.
    expect(Array.from(m.sensitivity)).toEqual([20 / 64, 1, 160 / 64, 0]);
    m.release([10.123, -3.3, 7, 5]).forEach((x) => {
      expect(Number.isInteger(x * 64)).toBe(true);
    });
    // Composition: zCDP parts add their rho; other parts enter as zCDP (safe).
    const rho = (m.privacy as { rho: number }).rho;
    const both = compose([m.privacy, m.privacy]);
    expect(both.kind).toBe('zcdp');
    // compose rounds the sum up (ROUND_UP), plus 4 EPS of rounding (measured 4 EPS; earlier
    // toBeCloseTo(_, 12), 5e-13 absolute, 46000 EPS relative here).
    expectClose((both as { rho: number }).rho, 2 * rho, ROUND_UP + 4 * EPS, 'rho of two');
    const mixed = compose([m.privacy, gaussianPrivacy({ scales: [2], sensitivity: [1] }), laplacePrivacy({ scales: [10], sensitivity: [1] })]);
    // mu^2 / 2 = 0.125 comes 12 EPS high (gaussianPrivacy's round-ups, squared) and eps^2 / 2 = 0.005
    // 8 EPS high (laplacePrivacy's, squared): 10 EPS of the total; compose's ROUND_UP makes 14 EPS
    // (measured); plus rounding: 20 EPS.
    expectClose((mixed as { rho: number }).rho, rho + 0.125 + 0.005, 20 * EPS, 'rho of a mixture');
  });

  it('takes mu, groups and every allocation in grid mode, and the default grid works at K = 5e4, epsilon 1e6 and epsilon 0', () => {
    const byMu = gaussianMechanism({ sensitivity, mu: 0.5 });
    expect((byMu.privacy as { rho: number }).rho).toBeLessThanOrEqual(0.125);
    // Tight: SAFETY on the scales, squared: 2 SAFETY below (measured), plus 8 EPS. Earlier: 0.1%.
    expect((byMu.privacy as { rho: number }).rho).toBeGreaterThan(0.125 * (1 - (2 * SAFETY + 8 * EPS)));
    const layers = gaussianMechanism({ groups: { sizes: [1000, 10], sensitivity: [1, 3] }, epsilon: 1, delta: 1e-6 });
    expect(layers.release(new Float64Array(1010)).every((x) => Number.isInteger(x / layers.grid!))).toBe(true);
    for (const allocation of ['iid', 'spr', 'optimal'] as const) {
      expect(gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, allocation }).privacy.delta(1)).toBeLessThanOrEqual(1e-6);
    }
    const long = gaussianMechanism({ sensitivity: new Float64Array(50_000).fill(1), epsilon: 1, delta: 1e-6 });
    expect(long.privacy.delta(1)).toBeLessThanOrEqual(1e-6);
    expect(long.release(new Float64Array(50_000)).length).toBe(50_000);
    expect(gaussianMechanism({ sensitivity: [1], epsilon: 1e6, delta: 1e-6 }).privacy.epsilon(1e-6)).toBeLessThanOrEqual(1e6);
    expect(gaussianMechanism({ sensitivity: [1], epsilon: 0, delta: 1e-3 }).privacy.delta(0)).toBeLessThanOrEqual(1e-3);
    // Beyond what doubles can hold, a clear error about the noise (not about an internal `mu`).
    expect(() => gaussianMechanism({ sensitivity: [1], epsilon: 0, delta: 1e-200 })).toThrow(
      /^dpnoise: the noise for this profile and privacy level overflows double precision/,
    );
  });

  it('groups: neighbours within lambda (l2) round to at most lambda / g + sqrt(n) steps apart, and the privacy holds at that distance', () => {
    const sizes = [50, 3];
    const lambda = [0.7, 2];
    const m = gaussianMechanism({ groups: { sizes, sensitivity: lambda }, epsilon: 1, delta: 1e-6 });
    const g = m.grid!;
    const random = lcg(99);
    sizes.forEach((n, k) => {
      for (let trial = 0; trial < 2000; trial++) {
        const a = Array.from({ length: n }, () => (random() - 0.5) * 100);
        const direction = a.map(() => random() - 0.5);
        const norm = Math.hypot(...direction);
        const b = a.map((x, j) => x + (lambda[k]! * direction[j]!) / norm);
        const moved = Math.hypot(...a.map((x, j) => roundHalfUp(x / g) - roundHalfUp(b[j]! / g)));
        expect(moved).toBeLessThanOrEqual(m.sensitivity[k]! / g);
      }
    });
  });

  it('audit: delta(eps) estimated at the worst rounded neighbour stays below the reported bound', () => {
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-3, grid: 1 / 16 });
    const variances = Array.from(m.scales, (s) => (s * 16) ** 2);
    const shift = Array.from(m.sensitivity, (l) => l * 16);
    const releases = 200_000;
    const noise = new Float64Array(releases * sensitivity.length);
    const zero = new Float64Array(sensitivity.length);
    const rng = createRng({ seed: 'grid gaussian audit' });
    for (let r = 0; r < releases; r++)
      noise.set(
        m.release(zero, { rng }).map((x) => x * 16),
        r * sensitivity.length,
      );
    const losses = gaussianLosses(
      noise,
      variances.map((v) => Math.sqrt(v) || 1),
      shift,
    );
    for (const eps of [0, 0.5, 1]) {
      const { delta, se } = estimateDelta(losses, eps);
      expect(delta - 5 * se, `eps ${eps}`).toBeLessThanOrEqual(m.privacy.delta(eps));
    }
  });
});

describe('laplaceMechanism in grid mode (the default)', () => {
  const sensitivity = [0.3, 1, 2.5, 0];

  it('releases exact multiples of the grid, calibrated to the rounded sensitivities with no wasted budget', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 1, grid: 1 / 64 });
    expect(m.mode).toBe('grid');
    expect(m.grid).toBe(1 / 64);
    // ceil(lambda / grid) steps: 0.3 -> 20/64, 1 -> 64/64, 2.5 -> 160/64, 0 stays 0.
    expect(Array.from(m.sensitivity)).toEqual([20 / 64, 1, 160 / 64, 0]);
    expect(m.privacy.epsilonPure).toBeLessThanOrEqual(1);
    // Tight: SAFETY on the scales, less the 2^-50 round-up (measured SAFETY - 5 EPS), plus 4 EPS. Earlier: 1e-9.
    expect(m.privacy.epsilonPure).toBeGreaterThan(1 - (SAFETY + 4 * EPS));
    const out = m.release([10.123456, -3.3, 7, 1e6 + 0.01]);
    out.forEach((x) => {
      expect(Number.isInteger(x * 64)).toBe(true);
    });
    expect(out[3]).toBe(Math.round((1e6 + 0.01) * 64) / 64); // zero sensitivity: rounded, no noise
    // With grid 1 and lambda 1 the change is one step (not two), so epsilon 1 is spent as asked.
    const unit = laplaceMechanism({ sensitivity: [1], epsilon: 1, grid: 1 });
    expect(Array.from(unit.sensitivity)).toEqual([1]);
    // The scale carries SAFETY, and epsilon its reciprocal rounded up: SAFETY + 4 EPS (measured
    // SAFETY - 4 EPS, and exactly SAFETY for the scale). Earlier: 1e-9.
    expectClose(unit.privacy.epsilonPure, 1, SAFETY + 4 * EPS, 'grid 1, lambda 1');
    expectClose(unit.scales[0]!, 1, SAFETY + 4 * EPS, 'scale one step');
    // A large epsilon needs a scale below one step: allowed, and reported as asked.
    expectClose(laplaceMechanism({ sensitivity: [1], epsilon: 50, grid: 1 }).privacy.epsilonPure, 50, SAFETY + 4 * EPS, 'epsilon 50');
    expectClose(laplaceMechanism({ sensitivity: [1], epsilon: 50 }).privacy.epsilonPure, 50, SAFETY + 4 * EPS, 'epsilon 50, default grid');
  });

  it('is reproducible under a seed, chooses a grid by default, and checks its options', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 2 });
    expect(m.grid).toBe(2 ** Math.floor(Math.log2(0.3 / 1024)));
    const q = [1, 2, 3, 4];
    expect(m.release(q, { rng: createRng({ seed: 1 }) })).toEqual(m.release(q, { rng: createRng({ seed: 1 }) }));
    expect(m.release(q)).toHaveLength(4);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, grid: 0.3 })).toThrow(/`grid` must be a power of two; got 0.3/);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, grid: 1024 * (1 + 2 ** -52) })).toThrow(/`grid` must be a power of two/);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, mode: 'continuous', grid: 1 })).toThrow(/`grid` applies to `mode: 'grid'` only/);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, mode: 'discrete' as never })).toThrow(/`mode` must be one of 'grid', 'continuous'/);
    expect(() => laplaceMechanism({ sensitivity: [1], epsilon: 1, grid: 2 ** -60 })).toThrow(/above 2\^40; use a larger grid/);
    expect(() => m.release([Infinity, 0, 0, 0])).toThrow(/`query\[0\]` must be a finite number/);
  });

  it('groups: neighbours within lambda (l1) round to at most lambda / g + n steps apart', () => {
    const m = laplaceMechanism({ groups: { sizes: [4, 2], sensitivity: [1, 3] }, epsilon: 1 });
    const g = m.grid!;
    expect(m.release(new Float64Array(6)).every((x) => Number.isInteger(x / g))).toBe(true);
    expect(m.sensitivity[0]! / g).toBeGreaterThanOrEqual(1 / g + 4);
    expect(m.privacy.epsilonPure).toBeLessThanOrEqual(1);
  });

  it('audit: the privacy loss at the worst rounded neighbour never exceeds epsilon, and reaches it', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 1, grid: 1 / 16 });
    const steps = Array.from(m.scales, (s) => s * 16);
    const shift = Array.from(m.sensitivity, (l) => l * 16); // integer changes in grid units
    const releases = 200_000;
    const noise = new Float64Array(releases * sensitivity.length);
    const zero = new Float64Array(sensitivity.length);
    const rng = createRng({ seed: 'grid audit' });
    for (let r = 0; r < releases; r++)
      noise.set(
        m.release(zero, { rng }).map((x) => x * 16),
        r * sensitivity.length,
      );
    const losses = laplaceLosses(
      noise,
      steps.map((t) => t || 1),
      shift,
    );
    const worst = losses.reduce((a, L) => Math.max(a, L), -Infinity);
    // The losses add the same terms l / t as the library (scaling by 16 is exact), which rounds its
    // sum up by ROUND_UP, more than this sum's roundings: 0 EPS (measured 4 EPS below). Earlier: 1e-12.
    expect(worst).toBeLessThanOrEqual(m.privacy.epsilonPure);
    expectClose(worst, m.privacy.epsilonPure, ROUND_UP + 4 * EPS, 'attained'); // measured 4.0 EPS (earlier 1e-9)
    expect(estimateDelta(losses, m.privacy.epsilonPure).delta).toBe(0);
  });
});

afterEach(() => w.setExactOnly(false));
