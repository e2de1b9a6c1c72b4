// Grid mode of correlatedSum: the correlated mechanism's proof (docs/mechanisms.md, "Correlated sums"),
// carried out on integers. The sums are rounded to a power-of-two grid g (F = round(f / g)), and
// the mechanism releases A = 2F - n Cg (Cg = ceil(C / g)) and s n with independent discrete
// Gaussian noise of one variance sigma^2, then post-processes, exactly as the continuous version:
//   F_hat = (A_hat + Cg N_hat / s) / 2,  n_hat = N_hat / s.
// Adding a record x in [0, C]^d moves each F_j by 0 to ceil(x_j / g) <= Cg (grid.ts), so A_j by at
// most Cg; B = Cg + 2 also covers sums whose floating-point rounding is off by under one grid step.
// s n moves by s, so the integer release moves by at most sqrt(d B^2 + s^2) in l2 norm, under
// discrete Gaussian noise of one variance: rho-zCDP with rho = (d B^2 + s^2) / (2 sigma^2) (Canonne,
// Kamath & Steinke 2020), and close to Gaussian noise (docs/accounting.md, "Discrete Gaussian"). s is a power of two near B d^(1/4) (the t = sqrt(d) of the continuous design),
// so sums are exact multiples of g / (2s), the output grid. The outputs are computed from the exact
// integers s A_hat + Cg N_hat = 2 s F + s Y + Cg Z and rounded once: a function of the release.
import { independentPrivacy } from '../accounting/independent.js';
import type { ZcdpPrivacy } from '../accounting/privacy.js';
import { MAX_GRID_SCALE, SAFETY } from '../core/domains.js';
import { powerOfTwoAbove, powerOfTwoBelow, roundUp } from '../core/rounding.js';
import { integerIn } from '../core/validate.js';
import { correlatedChunk } from '../noise/correlated.js';
import { drawValidated } from '../noise/samplers.js';
import { queryEntries } from './grid.js';
import { readReleaseOptions, releaseArrays, releasedArray, type VectorReleaseOptions } from './release-options.js';
import type { WasmVector } from '../noise/wasm-vector.js';

/**
 * What a correlated release returns.
 *
 * @group Mechanisms
 */
export interface CorrelatedRelease {
  /** The noisy sums (a new array). */
  sums: Float64Array;
  /** The noisy count; undefined for sparse records (sums only). */
  count: number | undefined;
}

/**
 * The noise of a correlated-sum mechanism, in either mode, and its release.
 *
 * @group Mechanisms
 */
export interface CorrelatedNoise {
  /** The Mahalanobis distance mu the noise meets: mu0(epsilon, delta) or sqrt(2 rho). */
  readonly mu: number;
  /** Standard deviation of the term shared by all sums. */
  readonly sharedScale: number;
  /** Standard deviation of each sum's independent term. */
  readonly independentScale: number;
  /** Standard deviation of each released sum. */
  readonly sumScale: number;
  /** Standard deviation of the released count (0 when the count is public or not released). */
  readonly countScale: number;
  /** Expected squared error of the d sums together. */
  readonly mse: number;
  /** The standard mechanism's mse divided by this one's. */
  readonly gain: number;
  /**
   * Adds the noise to copies of the sums (or writes them into `out`) and the count; the inputs stay
   * untouched unless they are `out`. The sums and `out` may be WasmVectors, read and written where
   * they are (the returned `sums` is then `out`'s `values`).
   */
  release(sums: Float64Array | readonly number[] | WasmVector, count?: number, options?: VectorReleaseOptions): CorrelatedRelease;
}

/** What grid mode calibrates; `correlatedSum` adds d, the neighbour relation and the mode. */
export interface GridCorrelatedSum extends CorrelatedNoise {
  readonly grid: number;
  readonly privacy: ZcdpPrivacy;
}

/** The largest noise variance in grid units squared: a standard deviation of 2^40 steps. */
const MAX_VARIANCE = MAX_GRID_SCALE * MAX_GRID_SCALE;

/**
 * The rounding grid g and s, for an output grid or by default with C/g in (256, 512], fewer cells
 * when d B^2 / rho would take the noise past the sampler's 2^40 steps of standard deviation.
 */
function layout(C: number, d: number, rho: number, grid: number | undefined): { g: number; s: number; Cg: number; B: number } {
  // The power of two nearest B d^(1/4) on a log scale, at least 1, by exact comparisons (no log2).
  const sFor = (B: number) => {
    const x = B * Math.sqrt(Math.sqrt(d));
    const p = powerOfTwoBelow(x);
    return Math.max(1, x >= p * Math.SQRT2 ? 2 * p : p);
  };
  let g: number;
  let s: number;
  if (grid === undefined) {
    // s^2 <= 2 B^2 sqrt(d) after rounding s to a power of two; a factor 2 to spare.
    const cells = Math.min(512, Math.floor(Math.sqrt((MAX_VARIANCE * rho) / (d + 2 * Math.sqrt(d)))) - 2);
    if (cells < 1) throw new RangeError(`dpnoise: grid mode cannot give rho = ${rho} at dimension ${d}: the noise would pass 2^40 grid steps.`);
    g = powerOfTwoAbove(C / cells);
    s = sFor(Math.ceil(C / g) + 2);
  } else {
    // g = grid 2s: of the powers of two s, the one whose release errs least over its d sums and
    // its count together, sigma^2 (d grid^2 (s^2 + Cg^2) + 1 / s^2) with sigma^2 proportional to
    // d B^2 + s^2 (every s is private; iterating s = sFor(B) as for the default grid can alternate
    // between two values far from the best).
    let best = Infinity;
    s = 1;
    for (let candidate = 1; candidate <= 2 ** 40; candidate *= 2) {
      const Cg = Math.ceil(C / (grid * 2 * candidate));
      const variance = d * (Cg + 2) ** 2 + candidate ** 2;
      const error = variance * (d * grid * grid * (candidate ** 2 + Cg ** 2) + 1 / candidate ** 2);
      if (error < best) [best, s] = [error, candidate];
    }
    g = grid * 2 * s;
  }
  if (!(g / (2 * s) >= 2 ** -1000)) throw new RangeError(`dpnoise: \`bound\` is too small for grid mode (its grid would be below 2^-1000); got ${C}.`);
  const Cg = Math.ceil(C / g);
  return { g, s, Cg, B: Cg + 2 };
}

/**
 * correlatedSum({ ..., mode: 'grid' }), already checked for d, C and the neighbour relation, at
 * rho-zCDP `rhoTarget` (the budget as rho = mu^2/2); mu0 is the continuous distance, for the gain.
 */
export function gridCorrelatedSum(
  d: number,
  C: number,
  rhoTarget: number,
  mu0: number,
  gridOption: number | undefined,
): { noise: GridCorrelatedSum; privacy: ZcdpPrivacy } {
  const { g, s, Cg, B } = layout(C, d, rhoTarget, gridOption);
  const sigma2 = (SAFETY * (d * B * B + s * s)) / (2 * rhoTarget);
  if (!(sigma2 <= MAX_VARIANCE))
    throw new RangeError(
      `dpnoise: with \`grid\` ${g / (2 * s)} the noise standard deviation is ${Math.sqrt(sigma2)} grid steps, above 2^40; use a larger grid.`,
    );
  const sigma = Math.sqrt(sigma2);
  // The release's l2 sensitivity in steps, rounded up, under discrete Gaussian noise of variance
  // sigma2: one group, whose bound B has a margin (so no lower end is claimed).
  const privacy = independentPrivacy('gaussian', Float64Array.of(roundUp(Math.sqrt(d * B * B + s * s))), () => sigma, true, true) as ZcdpPrivacy;
  const independentScale = (g * sigma) / 2;
  const sharedScale = (g * Cg * sigma) / (2 * s);
  const larger = Math.max(independentScale, sharedScale); // sqrt of the sum of squares, in basic operations (Math.hypot differs between engines)
  const sumScale = larger * Math.sqrt((independentScale / larger) ** 2 + (sharedScale / larger) ** 2);
  const mse = d * sumScale * sumScale;
  const outputGrid = g / (2 * s);
  const sumEntries = queryEntries(g); // checked before any noise is drawn: the exact integers stay finite

  function release(sums: Float64Array | readonly number[] | WasmVector, count?: number, options?: VectorReleaseOptions): CorrelatedRelease {
    const { random, out: lent, given, budget } = readReleaseOptions(options, d, true);
    const n = integerIn('count', count, { min: 0, max: Number.MAX_SAFE_INTEGER }, { private: true }); // the number of records is private
    const { exact, target: out } = releaseArrays('sums', sums, sumEntries, d, lent, { budget, privacy }, true);
    const stream = random.stream();
    // The noises Z (the shared one, coordinate d of the stream) and Y, a chunk at a time, each
    // chunk combined exactly with 2 s F, F = round(f / g), as soon as it is drawn: each output is
    // rounded once.
    const Z = drawValidated('discreteGaussianSamples', new Float64Array(1), sigma2, stream, { origin: d })[0]!;
    drawValidated('discreteGaussianSamples', out, sigma2, stream, {
      finish: (w, start, m) => correlatedChunk(w, exact, out, start, m, s, Cg, Z, g, outputGrid),
    });
    return { sums: releasedArray(given, out), count: n + Z / s };
  }

  const noise = {
    grid: outputGrid,
    privacy,
    mu: Math.sqrt(2 * privacy.rho),
    sharedScale,
    independentScale,
    sumScale,
    countScale: sigma / s,
    mse,
    gain: (d * d * C * C) / (mu0 * mu0) / mse,
    release,
  };
  return { noise, privacy };
}
