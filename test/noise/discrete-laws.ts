// What the tests of the discrete samplers share (discrete.test.ts, discrete-exact.test.ts and
// discrete.long.test.ts): draws of the kernels straight from the loaded module (seeded, or from
// the CSPRNG with a pool of a given size), the laws they must follow, and Pearson's chi-square
// against them with its rejection levels.
import { expect } from 'vitest';
import { useExactPath } from '../../src/noise/discrete-exact.js';
import { cryptoStream } from '../../src/noise/random.js';
import { setPoolWordsForTesting } from '../../src/wasm/host.js';
import { wasm, type WasmExports } from '../../src/wasm/loader.js';

useExactPath(); // these tests call the discrete kernels directly, past the samplers that install it

export type DiscreteKernel = 'discreteLaplaceSamples' | 'discreteGaussianSamples';
const w = wasm();
export const chunk = w.sampleChunkLength();

/** n draws of a kernel (noise only, grid 1) from a seeded stream; with `exact`, every draw through the exact path. */
export function seededDraws(kernel: DiscreteKernel, scale: number, n: number, { seed = 0xd15c7e7en, exact = false } = {}, module = w): Float64Array {
  new BigUint64Array(module.memory.buffer, module.streamPointer(), 2).set([seed, 0x9e3779b97f4a7c15n]);
  module.useSeededExtras();
  module.setExactOnly(exact);
  try {
    return kernelLoop(module, kernel, scale, n, (start, m) => module.seededWords(start, m));
  } finally {
    module.setExactOnly(false);
  }
}

/** n draws with the CSPRNG (primary words and pool), the pool refilled `poolWords` at a time (0: whole). */
export function csprngDraws(kernel: DiscreteKernel, scale: number, n: number, poolWords = 0): Float64Array {
  setPoolWordsForTesting(poolWords);
  try {
    w.usePoolExtras(0);
    cryptoStream.begin(w);
    return kernelLoop(w, kernel, scale, n, (start, m) => cryptoStream.words(w, start, m));
  } finally {
    setPoolWordsForTesting(0);
  }
}

function kernelLoop(module: WasmExports, kernel: DiscreteKernel, scale: number, n: number, words: (start: number, m: number) => void): Float64Array {
  const out = new Float64Array(n);
  for (let start = 0; start < n; start += chunk) {
    const m = Math.min(chunk, n - start);
    words(start, m);
    module[kernel](start, m, 0, scale, 1, module.valuesPointer(), module.valuesPointer(), module.scalesPointer());
    out.set(new Float64Array(module.memory.buffer, module.valuesPointer(), m), start);
  }
  return out;
}

/** P(Y <= k) of the discrete Laplace P(y) proportional to exp(-|y| / t). */
export function laplaceCdf(t: number): (k: number) => number {
  const q = Math.exp(-1 / t);
  return (k) => (k >= 0 ? 1 - q ** (k + 1) / (1 + q) : q ** -k / (1 + q));
}

/** P(Y <= k) of the discrete Gaussian P(y) proportional to exp(-y^2 / (2 s)): summed, or the normal CDF at k + 1/2 for s >= 2500 (equal to far below 1e-100). */
export function gaussianCdf(s: number): (k: number) => number {
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
 * The draws sorted, once per array: expectLaw tests one set of draws against three laws. The
 * arrays passed to chiSquare are never written after they are drawn.
 */
const sortedDraws = new WeakMap<Float64Array, Float64Array>();
function sortedOf(draws: Float64Array): Float64Array {
  let sorted = sortedDraws.get(draws);
  if (!sorted) {
    sorted = Float64Array.from(draws).sort();
    sortedDraws.set(draws, sorted);
  }
  return sorted;
}

/**
 * Pearson chi-square of integer draws against a CDF, over bins of consecutive integers cut from
 * the left once each holds at least `minimum` expected draws (the tails are the outer bins).
 */
export function chiSquare(draws: Float64Array, cdf: (k: number) => number, minimum = Math.max(80, draws.length / 40)): ChiSquare {
  const n = draws.length;
  const sorted = sortedOf(draws);
  const lo = sorted[0]!;
  const hi = sorted[n - 1]!;
  const step = Math.max(1, Math.floor((hi - lo) / 4000));
  const edges: number[] = []; // bin b is (edges[b - 1], edges[b]]
  const cdfs: number[] = []; // cdf at each edge, computed once
  let below = 0;
  for (let k = lo; k < hi; k += step) {
    const c = cdf(k);
    if (n * (c - below) >= minimum && n * (1 - c) >= minimum) {
      edges.push(k);
      cdfs.push(c);
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
    const c = b < edges.length ? cdfs[b]! : 1;
    chi2 += (count - n * (c - previous)) ** 2 / (n * (c - previous));
    previous = c;
  }
  return { chi2, df: edges.length };
}

export type ChiSquare = { chi2: number; df: number };

/** Rejects when chi^2 is more than 5 standard deviations (sqrt(2 df)) above its mean df: for seeded draws, which cannot fail by chance. */
export const rejectsSeeded = ({ chi2, df }: ChiSquare) => chi2 > df + 5 * Math.sqrt(2 * df);

/**
 * For draws from the CSPRNG: rejects above the chi-square quantile at 6.5 standard normal
 * deviations by Wilson and Hilferty's cube-root approximation, a level near 1e-11 for every df from
 * 3 to 1000 (scipy's chi2.sf), where rejectsSeeded's is 7e-4 at df = 6.
 */
export const rejectsCsprng = ({ chi2, df }: ChiSquare) => chi2 > df * (1 - 2 / (9 * df) + 6.5 * Math.sqrt(2 / (9 * df))) ** 3;

/**
 * Chi-square on the draws at the true scale passes, and at a scale `off` times wider or narrower
 * (5% unless said) fails (power).
 */
export function expectLaw(
  draws: Float64Array,
  cdfAt: (scale: number) => (k: number) => number,
  scale: number,
  where: string,
  rejects = rejectsSeeded,
  off = 1.05,
): void {
  const percent = `${Math.round((off - 1) * 100)}%`;
  expect(draws.every(Number.isInteger), `${where}: integers`).toBe(true);
  expect(rejects(chiSquare(draws, cdfAt(scale))), `${where}: matches`).toBe(false);
  expect(rejects(chiSquare(draws, cdfAt(scale * off))), `${where}: ${percent} wider is rejected`).toBe(true);
  expect(rejects(chiSquare(draws, cdfAt(scale / off))), `${where}: ${percent} narrower is rejected`).toBe(true);
}

/**
 * n draws (a multiple of 1e6) of discrete Laplace t = 1 and discrete Gaussian s = 2 from the
 * CSPRNG, a million at a time: the count at every |y| <= 6 within 5.5 standard errors of n times
 * its probability. Each of the 14 counts strays that far with probability 3.8e-8, whatever n.
 */
export function expectCsprngPmf(n: number): void {
  for (const [kernel, cdf] of [
    ['discreteLaplaceSamples', laplaceCdf(1)],
    ['discreteGaussianSamples', gaussianCdf(2)],
  ] as const) {
    const counts = new Map<number, number>();
    for (let done = 0; done < n; done += 1_000_000) {
      for (const y of csprngDraws(kernel, kernel === 'discreteLaplaceSamples' ? 1 : 2, 1_000_000)) {
        if (Math.abs(y) <= 6) counts.set(Math.abs(y), (counts.get(Math.abs(y)) ?? 0) + 1);
      }
    }
    for (let y = 0; y <= 6; y++) {
      const p = y === 0 ? cdf(0) - cdf(-1) : 2 * (cdf(y) - cdf(y - 1));
      const se = Math.sqrt(n * p * (1 - p));
      expect(Math.abs((counts.get(y) ?? 0) - n * p), `${kernel}, |y| = ${y}`).toBeLessThan(5.5 * se);
    }
  }
}
