// Grid mode: exact discrete Laplace noise on a power-of-two grid (MATH.md section 8).
import { describe, expect, it } from 'vitest';
import { compose, createRng, gaussianDelta, gaussianMechanism, gaussianPrivacy, laplaceMechanism, laplacePrivacy } from '../src/index.js';
import { zcdpDelta } from '../src/grid.js';
import { wasm } from '../src/wasm.js';
import { estimateDelta, gaussianLosses, laplaceLosses } from './audit.js';
import { expectClose } from './helpers.js';

/** Draws n discrete Laplace (or Gaussian) values of integer parameter t from a fixed seeded stream, kernel direct. */
function discreteDraws(t: number, n: number, kernel: 'discreteLaplaceSamples' | 'discreteGaussianSamples' = 'discreteLaplaceSamples'): Float64Array {
  const w = wasm();
  new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0xD15C7E7En, 0x9E3779B97F4A7C15n]);
  w.useSeededExtras();
  const out = new Float64Array(n);
  const chunk = w.sampleChunkLength();
  for (let start = 0; start < n; start += chunk) {
    const m = Math.min(chunk, n - start);
    expect(w[kernel](start, 0, m, false, t, false, 0)).toBe(m);
    out.set(new Float64Array(w.memory.buffer, w.valuesPointer(), m), start);
  }
  return out;
}

/** Pearson chi-square of integer draws against P(y) proportional to exp(-|y|/t), |y| <= 25 binned. */
function chiSquare(draws: Float64Array, t: number): { chi2: number; df: number } {
  const q = Math.exp(-1 / t);
  return pearson(draws, (y) => ((1 - q) / (1 + q)) * q ** Math.abs(y), 25);
}

/** Pearson chi-square against the discrete Gaussian P(y) proportional to exp(-y^2 / (2 s)). */
function chiSquareGaussian(draws: Float64Array, s: number): { chi2: number; df: number } {
  const reach = Math.ceil(12 * Math.sqrt(s));
  let total = 0;
  for (let y = -reach; y <= reach; y++) total += Math.exp((-y * y) / (2 * s));
  return pearson(draws, (y) => Math.exp((-y * y) / (2 * s)) / total, Math.ceil(3 * Math.sqrt(s)));
}

/** Pearson chi-square over bins -edge..edge, with both tails beyond as two more bins. */
function pearson(draws: Float64Array, pmf: (y: number) => number, edge: number): { chi2: number; df: number } {
  const counts = new Map<number, number>();
  for (const y of draws) {
    const bin = Math.max(-edge - 1, Math.min(edge + 1, y));
    counts.set(bin, (counts.get(bin) ?? 0) + 1);
  }
  let inside = 0;
  for (let y = -edge; y <= edge; y++) inside += pmf(y);
  const tail = (1 - inside) / 2; // P(y > edge), each side
  let chi2 = 0;
  for (let bin = -edge - 1; bin <= edge + 1; bin++) {
    const expected = draws.length * (Math.abs(bin) > edge ? tail : pmf(bin));
    chi2 += ((counts.get(bin) ?? 0) - expected) ** 2 / expected;
  }
  return { chi2, df: 2 * edge + 2 };
}

const rejects = ({ chi2, df }: { chi2: number; df: number }) => chi2 > df + 5 * Math.sqrt(2 * df);

describe('exact discrete Laplace sampler', () => {
  it('matches the discrete Laplace PMF (chi-square on 1e6 draws) and rejects a scale 5% off', () => {
    for (const t of [1, 3, 8]) {
      const draws = discreteDraws(t, 1_000_000);
      expect(draws.every(Number.isInteger)).toBe(true);
      expect(rejects(chiSquare(draws, t)), `t = ${t}`).toBe(false);
      expect(rejects(chiSquare(draws, t * 1.05)), `t = ${t}, 5% wider`).toBe(true);
      expect(rejects(chiSquare(draws, t / 1.05)), `t = ${t}, 5% narrower`).toBe(true);
    }
  });

  it('gives the same integers for every chunk split, and exactly 0 for scale 0', () => {
    const all = discreteDraws(5, 20_000);
    const w = wasm();
    new BigUint64Array(w.memory.buffer, w.streamPointer(), 2).set([0xD15C7E7En, 0x9E3779B97F4A7C15n]);
    w.useSeededExtras();
    expect(w.discreteLaplaceSamples(1000, 0, 700, false, 5, false, 0)).toBe(700);
    expect(Array.from(new Float64Array(w.memory.buffer, w.valuesPointer(), 700))).toEqual(Array.from(all.subarray(1000, 1700)));
    expect(discreteDraws(0, 100).every((y) => y === 0)).toBe(true);
  });
});

describe('exact discrete Gaussian sampler', () => {
  it('matches the discrete Gaussian PMF (chi-square on 1e6 draws) and rejects a scale 5% off', () => {
    for (const variance of [1, 10, 400]) {
      const draws = discreteDraws(variance, 1_000_000, 'discreteGaussianSamples');
      expect(draws.every(Number.isInteger)).toBe(true);
      expect(rejects(chiSquareGaussian(draws, variance)), `s = ${variance}`).toBe(false);
      expect(rejects(chiSquareGaussian(draws, variance * 1.05 ** 2)), `s = ${variance}, 5% wider`).toBe(true);
      expect(rejects(chiSquareGaussian(draws, variance / 1.05 ** 2)), `s = ${variance}, 5% narrower`).toBe(true);
    }
  });
});

describe('gaussianMechanism in grid mode (zCDP accounting)', () => {
  const sensitivity = [0.3, 1, 2.5, 0];

  it('the zCDP conversion is never tighter than the exact continuous Gaussian curve', () => {
    for (const mu of [0.05, 0.3, 1, 3]) {
      for (const eps of [0, 0.2, 1, 5]) expect(zcdpDelta((mu * mu) / 2, eps)).toBeGreaterThanOrEqual(gaussianDelta(mu, eps));
    }
  });

  it('releases multiples of the grid and guarantees at least the requested (epsilon, delta)', () => {
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode: 'grid', grid: 1 / 64 });
    expect(m.privacy.kind).toBe('zcdp');
    expect(m.privacy.delta(1)).toBeLessThanOrEqual(1e-6);
    expect(m.privacy.delta(1)).toBeGreaterThan(0.9e-6);
    expect(m.privacy.epsilon(1e-6)).toBeLessThanOrEqual(1);
    m.release([10.123, -3.3, 7, 5]).forEach((x) => expect(Number.isInteger(x * 64)).toBe(true));
    expect(() => gaussianMechanism({ sensitivity, mu: 1, mode: 'grid' } as never)).toThrow(/not `mu`/);
    // Composition: zCDP parts add their rho; other parts enter as zCDP (safe).
    const rho = (m.privacy as { rho: number }).rho;
    const both = compose([m.privacy, m.privacy]);
    expect(both.kind).toBe('zcdp');
    expect((both as { rho: number }).rho).toBeCloseTo(2 * rho, 12);
    const mixed = compose([m.privacy, gaussianPrivacy({ scales: [2], sensitivity: [1] }), laplacePrivacy({ scales: [10], sensitivity: [1] })]);
    expect((mixed as { rho: number }).rho).toBeCloseTo(rho + 0.125 + 0.005, 12);
  });

  it('audit: delta(eps) estimated at the worst rounded neighbour stays below the reported bound', () => {
    const m = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-3, mode: 'grid', grid: 1 / 16 });
    const variances = Array.from(m.scales, (s) => (s * 16) ** 2);
    const shift = Array.from(m.sensitivity, (l) => l * 16);
    const releases = 200_000;
    const noise = new Float64Array(releases * sensitivity.length);
    const zero = new Float64Array(sensitivity.length);
    const rng = createRng({ seed: 'grid gaussian audit' });
    for (let r = 0; r < releases; r++) noise.set(m.release(zero, { rng }).map((x) => x * 16), r * sensitivity.length);
    const losses = gaussianLosses(noise, variances.map((v) => Math.sqrt(v) || 1), shift);
    for (const eps of [0, 0.5, 1]) {
      const { delta, se } = estimateDelta(losses, eps);
      expect(delta - 5 * se, `eps ${eps}`).toBeLessThanOrEqual(m.privacy.delta(eps));
    }
  });
});

describe('laplaceMechanism in grid mode', () => {
  const sensitivity = [0.3, 1, 2.5, 0];

  it('releases exact multiples of the grid, calibrated to the rounded sensitivities', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 1, mode: 'grid', grid: 1 / 64 });
    expect(m.mode).toBe('grid');
    expect(m.grid).toBe(1 / 64);
    // floor(lambda / grid) + 1 steps: 0.3 -> 20/64, 1 -> 65/64, 2.5 -> 161/64, 0 stays 0.
    expect(Array.from(m.sensitivity)).toEqual([20 / 64, 65 / 64, 161 / 64, 0]);
    expect(m.privacy.epsilon).toBeLessThanOrEqual(1);
    expect(m.privacy.epsilon).toBeGreaterThan(0.99);
    m.scales.forEach((s) => expect(Number.isInteger(s * 64)).toBe(true));
    const out = m.release([10.123456, -3.3, 7, 1e6 + 0.01]);
    out.forEach((x) => expect(Number.isInteger(x * 64)).toBe(true));
    expect(out[3]).toBe(Math.round((1e6 + 0.01) * 64) / 64); // zero sensitivity: rounded, no noise
  });

  it('is reproducible under a seed, chooses a grid by default, and checks its options', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 2, mode: 'grid' });
    expect(m.grid).toBe(2 ** Math.floor(Math.log2(0.3 / 16)));
    const q = [1, 2, 3, 4];
    expect(m.release(q, { rng: createRng({ seed: 1 }) })).toEqual(m.release(q, { rng: createRng({ seed: 1 }) }));
    expect(m.release(q)).toHaveLength(4);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, mode: 'grid', grid: 0.3 })).toThrow(/`grid` must be a power of two; got 0.3/);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, grid: 1 })).toThrow(/`grid` applies to `mode: 'grid'` only/);
    expect(() => laplaceMechanism({ sensitivity, epsilon: 1, mode: 'discrete' as never })).toThrow(/`mode` must be one of 'continuous', 'grid'/);
    expect(() => laplaceMechanism({ groups: { sizes: [2], sensitivity: [1] }, epsilon: 1, mode: 'grid' })).toThrow(/per-coordinate `sensitivity`/);
    expect(() => laplaceMechanism({ sensitivity: [1], epsilon: 1, mode: 'grid', grid: 2 ** -60 })).toThrow(/above 2\^40; use a larger grid/);
    expect(() => m.release([1e300, 0, 0, 0])).toThrow(/more than 2\^52 grid steps/);
  });

  it('audit: the privacy loss at the worst rounded neighbour never exceeds epsilon, and reaches it', () => {
    const m = laplaceMechanism({ sensitivity, epsilon: 1, mode: 'grid', grid: 1 / 16 });
    const steps = Array.from(m.scales, (s) => s * 16);
    const shift = Array.from(m.sensitivity, (l) => l * 16); // integer changes in grid units
    const releases = 200_000;
    const noise = new Float64Array(releases * sensitivity.length);
    const zero = new Float64Array(sensitivity.length);
    const rng = createRng({ seed: 'grid audit' });
    for (let r = 0; r < releases; r++) noise.set(m.release(zero, { rng }).map((x) => x * 16), r * sensitivity.length);
    const losses = laplaceLosses(noise, steps.map((t) => t || 1), shift);
    const worst = losses.reduce((a, L) => Math.max(a, L), -Infinity);
    expect(worst).toBeLessThanOrEqual(m.privacy.epsilon * (1 + 1e-12));
    expectClose(worst, m.privacy.epsilon, 1e-9, 'attained');
    expect(estimateDelta(losses, m.privacy.epsilon).delta).toBe(0);
  });
});
