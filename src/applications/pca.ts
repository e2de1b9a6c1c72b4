// Differentially private principal component analysis (the journal paper's section VI-B).
//
// Data: n rows x in R^d (one per user), of l2 norm at most 1. The query is the Gram matrix
// A = X^T X = sum_users x x^T. It is symmetric, so only its K = d(d+1)/2 upper-triangle entries
// (i <= j, row-major) are released with noise and then mirrored to the lower triangle. Adding or
// removing one user changes entry (i, j) by x_i x_j, so the per-entry sensitivities are
//   lambda_ii = 1    (x_i^2 <= ||x||^2 <= 1)
//   lambda_ij = 1/2  (|x_i x_j| <= (x_i^2 + x_j^2) / 2 <= 1/2), i < j.
// Every user's contribution is clipped entry by entry to those levels (diagonal to [0, c_ii],
// off-diagonal to [-c_ij, c_ij]), so the sensitivities hold whatever the data; for unit rows and
// the default levels the clipping changes nothing. Smaller clip levels trade bias for less noise.
//
// The entries are released by gaussianMechanism / laplaceMechanism on that profile (the box bound
// of docs/calibration.md, "Allocations"): `optimal` gives each entry its own scale, `iid` one scale for
// all (for Gaussian noise the l2 norm of the profile over mu0, for Laplace its l1 norm over
// epsilon). As for every mechanism the release is exact on a grid by default, so no floating-point
// low bit tells neighbours apart.
//
// The sums over users are exact: each clipped contribution is rounded to a power-of-two quantum q
// (the mechanism's grid, or c_max 2^-20 in continuous mode) and the integers are added, which is
// exact while n ceil(c/q) <= 2^53, true for every n up to 2^32 when ceil(c/q) <= 2^21. A user then
// moves an entry by at most ceil(c/q) quanta whatever n is, so the sensitivities, and with them
// every scale and the grid, are the same for every dataset (a floating-point sum would need a
// slack growing with n, which under add/remove neighbours is private).
// The private subspace is spanned by the top-k eigenvectors of the noisy matrix, and scored by the
// subspace recovery error against the noiseless one (subspaces.ts).
//
// Caveat: the per-entry box bound is loose for this query. A unit row changes the whole upper
// triangle by at most 1 in l2 norm (sum_{i<=j} (x_i x_j)^2 <= 1) and (d + 1)/2 in l1 norm, far
// less than the profile's l2 norm sqrt(d + d(d-1)/8) and l1 norm d + d(d-1)/4; iid noise
// calibrated to those joint sensitivities (Dwork et al.'s "Analyze Gauss" for Gaussian noise) is
// much more accurate than either allocation here. The allocations are compared on equal terms.
import { GAUSSIAN_NOTIONS } from '../accounting/distance.js';
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import { ALLOCATIONS, type Allocation } from '../calibrate/allocations.js';
import { TARGET_OPTIONS, readTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { powerOfTwoBelow } from '../core/rounding.js';
import { fail, FINITE_ENTRIES, integerIn, numberIn, oneOf, readOptions, type Range, vector, vectorLength } from '../core/validate.js';
import { GAUSSIAN, LAPLACE, NOISES, type NoiseName } from '../noise/families.js';
import { sourceOf, type Rng } from '../noise/random.js';
import { type Mode, MODE_OPTIONS, readMode } from '../mechanisms/grid.js';
import { roundHalfUp } from '../core/rounding.js';
import { type GaussianMechanism, independentMechanism, type LaplaceMechanism } from '../mechanisms/independent.js';
import { MATRIX_DIMENSION } from './subspaces.js';

/**
 * Per-entry clip levels of each user's contribution x_i x_j; they become the sensitivities.
 *
 * @group Applications
 */
export interface CovarianceClip {
  /** c_ii: each x_i^2 is clipped to [0, c_ii]; in (0, 1], default 1 (no clipping for unit rows). */
  diagonal?: number;
  /** c_ij: each x_i x_j (i < j) is clipped to [-c_ij, c_ij]; in (0, 1/2], default 1/2. */
  offDiagonal?: number;
}

/**
 * Options of privateCovariance.
 *
 * @group Applications
 */
export interface PrivateCovarianceOptions {
  /** The n rows (users) of X, each of length d, finite; rows of l2 norm <= 1 are released unclipped. */
  data: readonly (Float64Array | readonly number[])[];
  /** The target: `epsilon` and `delta` (Gaussian noise), `mu` or `rho` (Gaussian), or `epsilon` alone (Laplace). */
  epsilon?: number;
  /** delta in [1e-300, 1), with `epsilon`, for Gaussian noise. */
  delta?: number;
  /** mu-GDP, for Gaussian noise. */
  mu?: number;
  /** rho-zCDP, for Gaussian noise. */
  rho?: number;
  /** 'gaussian' ((epsilon, delta)-DP, mu-GDP or rho-zCDP) or 'laplace' (pure epsilon-DP). */
  noise: NoiseName;
  /** How the noise is spread over the d(d+1)/2 entries (default 'optimal'). */
  allocation?: Allocation;
  /** Per-entry clip levels (default: 1 on the diagonal, 1/2 off it, which unit rows never exceed). */
  clip?: CovarianceClip;
  /** A ledger (createBudget) charged the release's `privacy` once the options and the data's shape are checked, before any entry of a row is read. */
  budget?: PrivacyBudget;
  /** The random source (default: the platform CSPRNG). */
  rng?: Rng;
  /** 'grid' (default: floating-point-safe exact discrete noise) or 'continuous' (simulations only), as for the mechanisms. */
  mode?: Mode;
  /** Grid mode's step, a power of two (default: as gaussianMechanism and laplaceMechanism choose it). */
  grid?: number;
}

/**
 * What privateCovariance returns.
 *
 * @group Applications
 */
export interface PrivateCovariance {
  /** The noisy symmetric d x d matrix, row-major (the caller's own array). */
  readonly matrix: Float64Array;
  /** d, the number of features. */
  readonly dimension: number;
  /** The per-entry sensitivities the noise is calibrated to: the clip levels (covarianceSensitivity) rounded up to whole grid steps (continuous mode: to whole quanta of 2^-20 of the largest), the same for every dataset. */
  readonly sensitivity: Float64Array;
  /** The mechanism used: its calibration (scales per upper-triangle entry, in the profile's order), privacy, mode and grid. */
  readonly calibration: GaussianMechanism | LaplaceMechanism;
  /** The privacy of the release (the mechanism's). */
  readonly privacy: GaussianMechanism['privacy'] | LaplaceMechanism['privacy'];
}

const DIAGONAL_CLIP: Range = { min: 0, max: 1, minOpen: true };
const OFF_DIAGONAL_CLIP: Range = { min: 0, max: 0.5, minOpen: true };

function readClip(clip: unknown): { diagonal: number; offDiagonal: number } {
  if (clip === undefined) return { diagonal: 1, offDiagonal: 0.5 };
  const o = readOptions('clip', clip, ['diagonal', 'offDiagonal']);
  return {
    diagonal: o.diagonal === undefined ? 1 : numberIn('clip.diagonal', o.diagonal, DIAGONAL_CLIP),
    offDiagonal: o.offDiagonal === undefined ? 0.5 : numberIn('clip.offDiagonal', o.offDiagonal, OFF_DIAGONAL_CLIP),
  };
}

/**
 * The per-entry sensitivity profile of the upper triangle of X^T X under add/remove of one user
 * with a row of l2 norm <= 1: a Float64Array of d(d+1)/2 entries in row-major order of (i, j),
 * i <= j ((0,0), (0,1), ..., (0,d-1), (1,1), ...), 1 on the diagonal and 1/2 off it, or the clip
 * levels when given.
 *
 * @example
 * ```ts
 * import { covarianceSensitivity } from 'dpnoise';
 *
 * // Entries (0,0), (0,1), (0,2), (1,1), (1,2), (2,2).
 * console.log(covarianceSensitivity(3)); // [1, 0.5, 0.5, 1, 0.5, 1]
 * ```
 *
 * @group Applications
 */
export function covarianceSensitivity(d: number, clip?: CovarianceClip): Float64Array {
  const dim = integerIn('d', d, MATRIX_DIMENSION);
  const c = readClip(clip);
  const profile = new Float64Array((dim * (dim + 1)) / 2);
  for (let i = 0, e = 0; i < dim; i++) {
    profile[e++] = c.diagonal;
    for (let j = i + 1; j < dim; j++) profile[e++] = c.offDiagonal;
  }
  return profile;
}

/** The rows as Float64Arrays of one length d, every entry finite; private, so errors name a row or entry, never its value. */
/** d, the length of the first row: the data's shape is public, its kind checked and no entry read. */
function dimensionOf(data: unknown): number {
  if (!Array.isArray(data)) fail(TypeError, 'data', 'an array of rows (Float64Arrays or arrays of numbers)', data, { private: true });
  if (data.length === 0) fail(RangeError, 'data.length', 'at least 1', 0);
  const d = vectorLength('data[0]', data[0], { private: true });
  if (d === 0) fail(RangeError, 'data[0].length', 'at least 1', 0);
  return integerIn('data[0].length', d, MATRIX_DIMENSION);
}

/** The rows of `data` (dimensionOf checked its kind), each of length d and finite. */
function readRows(data: readonly unknown[], d: number): Float64Array[] {
  return Array.from({ length: data.length }, (_, r) => vector(`data[${r}]`, data[r], FINITE_ENTRIES, { length: d, private: true }));
}

/** sum_users clip(x x^T), upper triangle in profile order (limits undefined: no clipping). */
function upperGram(rows: readonly Float64Array[], d: number, limits?: { diagonal: number; offDiagonal: number }): Float64Array {
  const out = new Float64Array((d * (d + 1)) / 2);
  const cd = limits ? limits.diagonal : Infinity;
  const co = limits ? limits.offDiagonal : Infinity;
  for (const x of rows) {
    for (let i = 0, e = 0; i < d; i++) {
      const xi = x[i]!;
      out[e++]! += Math.min(xi * xi, cd);
      for (let j = i + 1; j < d; j++) {
        const v = xi * x[j]!;
        out[e++]! += Math.min(co, Math.max(v, -co));
      }
    }
  }
  return out;
}

/**
 * sum_users q r(clip(x x^T) / q), upper triangle in profile order: each contribution rounded to the
 * quantum q (a power of two, exactly: core/rounding.ts's roundHalfUp) and the integers added exactly
 * (below 2^53: at most 2^32 users of at most 2^21 quanta each).
 */
function quantizedGram(rows: readonly Float64Array[], d: number, limits: { diagonal: number; offDiagonal: number }, q: number): Float64Array {
  const out = new Float64Array((d * (d + 1)) / 2);
  const { diagonal: cd, offDiagonal: co } = limits;
  for (const x of rows) {
    for (let i = 0, e = 0; i < d; i++) {
      const xi = x[i]!;
      out[e++]! += roundHalfUp(Math.min(xi * xi, cd) / q);
      for (let j = i + 1; j < d; j++) out[e++]! += roundHalfUp(Math.min(co, Math.max(xi * x[j]!, -co)) / q);
    }
  }
  return out.map((steps) => steps * q);
}

/** The symmetric d x d matrix (row-major) from its upper triangle in profile order. */
function mirror(upper: Float64Array, d: number): Float64Array {
  const m = new Float64Array(d * d);
  for (let i = 0, e = 0; i < d; i++) {
    for (let j = i; j < d; j++, e++) {
      m[i * d + j] = upper[e]!;
      m[j * d + i] = upper[e]!;
    }
  }
  return m;
}

/**
 * The exact Gram matrix X^T X = sum_users x x^T of the rows, d x d row-major (no noise: the
 * ground truth for the subspace error). With `clip`, each contribution is clipped as in
 * privateCovariance.
 *
 * @example
 * ```ts
 * import { gramMatrix } from 'dpnoise';
 *
 * console.log(gramMatrix([[1, 0], [0.6, 0.8]])); // [1.36, 0.48, 0.48, 0.64]
 * ```
 *
 * @group Applications
 */
export function gramMatrix(data: readonly (Float64Array | readonly number[])[], clip?: CovarianceClip): Float64Array {
  const d = dimensionOf(data);
  const rows = readRows(data, d);
  const limits = clip === undefined ? undefined : readClip(clip);
  return mirror(upperGram(rows, d, limits), d);
}

/**
 * Releases X^T X with differential privacy: the d(d+1)/2 upper-triangle entries of the clipped
 * Gram matrix get Gaussian ((epsilon, delta)-DP) or Laplace (epsilon-DP) noise calibrated to the
 * per-entry sensitivities (covarianceSensitivity) with the chosen allocation, and are mirrored to
 * the lower triangle. Neighbouring datasets differ by adding or removing one user (row).
 *
 * @example
 * ```ts
 * import { createRng, privateCovariance, subspaceError } from 'dpnoise';
 * import { syntheticPcaData, topEigenvectors } from 'dpnoise';
 *
 * const rng = createRng({ seed: 1 });
 * const { rows, basis } = syntheticPcaData({ n: 5000, d: 10, k: 2, rng });
 * const { matrix, calibration } = privateCovariance({
 *   data: rows,
 *   epsilon: 1,
 *   delta: 1e-6,
 *   noise: 'gaussian',
 * });
 * // Private PCA: the top-2 subspace of the noisy X^T X, near the true one.
 * const estimate = topEigenvectors(matrix, 10, 2);
 * console.log(subspaceError(estimate, basis, 10, 2)); // about 0.001
 * console.log(calibration.privacy.epsilon(1e-6)); // <= 1
 * ```
 *
 * @group Applications
 */
export function privateCovariance(options: PrivateCovarianceOptions): PrivateCovariance {
  const o = readOptions('options', options, ['data', ...TARGET_OPTIONS, 'noise', 'allocation', 'clip', 'budget', 'rng', ...MODE_OPTIONS]);
  const family = oneOf('noise', o.noise, NOISES) === 'gaussian' ? GAUSSIAN : LAPLACE;
  const target = readTarget(o, family === GAUSSIAN ? GAUSSIAN_NOTIONS : ['pure']);
  const allocation = o.allocation === undefined ? 'optimal' : oneOf('allocation', o.allocation, ALLOCATIONS);
  const mode = readMode(o);
  const rng = sourceOf(o.rng);
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  const d = dimensionOf(o.data);
  const limits = readClip(o.clip);
  // Everything public is read and checked; nothing below reads the rows' count or values until
  // the budget is charged: the calibration is public.
  const clipLevels = covarianceSensitivity(d, limits);
  const largest = Math.max(limits.diagonal, limits.offDiagonal);
  const finest = powerOfTwoBelow(largest) * 2 ** -20; // ceil(c / q) <= 2^21 for every clip level c
  const build = (lambda: Float64Array, grid: number | undefined) =>
    independentMechanism(family, target, { lambda, weights: undefined, grouped: false, allocation, p: 2 }, { ...mode, grid });
  // Continuous mode: noise for the clip levels rounded up to whole quanta (exact for powers of two).
  const continuous = mode.mode === 'continuous';
  let mechanism = build(continuous ? clipLevels.map((c) => finest * Math.ceil(c / finest)) : clipLevels, mode.grid);
  if (!continuous && mechanism.grid! < finest) {
    if (mode.grid !== undefined) {
      throw new RangeError(
        `dpnoise: \`grid\` must be at least ${finest} (2^-20 of the largest clip level, rounded to a power of two) for privateCovariance, so that the sums over users stay exact; got ${mode.grid}.`,
      );
    }
    mechanism = build(clipLevels, finest); // clip levels far apart: the finest grid the exact sums allow
  }
  const quantum = mechanism.grid ?? finest;
  budget?.spend(mechanism.privacy);
  const released = mechanism.release(quantizedGram(readRows(o.data as unknown[], d), d, limits, quantum), { rng });
  return frozenResult({ matrix: mirror(released, d), dimension: d, sensitivity: mechanism.sensitivity, calibration: mechanism, privacy: mechanism.privacy }, [
    'matrix',
  ]);
}
