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
// The noise is calibrated by calibrateGaussian / calibrateLaplace on that profile (the box bound
// of docs/math.md, "Allocations"): `optimal` gives each entry its own scale, `iid` one scale for all
// (for Gaussian noise the l2 norm of the profile over mu0, for Laplace its l1 norm over epsilon).
// The private subspace is spanned by the top-k eigenvectors of the noisy matrix (cyclic Jacobi
// rotations; meant for d up to about 50) and is scored by the subspace recovery error
//   SRE = ||(I - U_hat U_hat^T) U||_F^2 / k  =  ||U_hat U_hat^T - U U^T||_F^2 / (2k)  in [0, 1]
// against the top-k eigenvectors U of the noiseless matrix.
//
// Caveat: the per-entry box bound is loose for this query. A unit row changes the whole upper
// triangle by at most 1 in l2 norm (sum_{i<=j} (x_i x_j)^2 <= 1) and (d + 1)/2 in l1 norm, far
// less than the profile's l2 norm sqrt(d + d(d-1)/8) and l1 norm d + d(d-1)/4; iid noise
// calibrated to those joint sensitivities (Dwork et al.'s "Analyze Gauss" for Gaussian noise) is
// much more accurate than either allocation here. The allocations are compared on equal terms.
import { calibrateGaussian, calibrateLaplace, type Allocation, type GaussianCalibration, type LaplaceCalibration } from '../calibrate/allocations.js';
import { sourceOf, type Rng } from '../noise/random.js';
import { addGaussianNoise, addLaplaceNoise, gaussianNoise } from '../noise/samplers.js';
import { describe, FINITE_ENTRIES, numberIn, oneOf, readOptions, type Range, vector } from '../core/validate.js';

/** The noise families privateCovariance offers. */
export const PCA_MECHANISMS = ['gaussian', 'laplace'] as const;
/** The noise of `privateCovariance`: Gaussian for (epsilon, delta)-DP, Laplace for pure epsilon-DP. */
export type PcaMechanism = (typeof PCA_MECHANISMS)[number];

/** Per-entry clip levels of each user's contribution x_i x_j; they become the sensitivities. */
export interface CovarianceClip {
  /** c_ii: each x_i^2 is clipped to [0, c_ii]; in (0, 1], default 1 (no clipping for unit rows). */
  diagonal?: number;
  /** c_ij: each x_i x_j (i < j) is clipped to [-c_ij, c_ij]; in (0, 1/2], default 1/2. */
  offDiagonal?: number;
}

/** Options of privateCovariance. */
export interface PrivateCovarianceOptions {
  /** The n rows (users) of X, each of length d, finite; rows of l2 norm <= 1 are released unclipped. */
  data: readonly (Float64Array | readonly number[])[];
  /** The privacy budget epsilon. */
  epsilon: number;
  /** Required for Gaussian noise, not allowed for Laplace noise. */
  delta?: number;
  /** 'gaussian' ((epsilon, delta)-DP, needs delta) or 'laplace' (pure epsilon-DP). */
  mechanism: PcaMechanism;
  /** How the noise is spread over the d(d+1)/2 entries (default 'optimal'). */
  allocation?: Allocation;
  /** Per-entry clip levels (default: 1 on the diagonal, 1/2 off it, which unit rows never exceed). */
  clip?: CovarianceClip;
  /** The random source (default: the platform CSPRNG). */
  rng?: Rng;
}

/** What privateCovariance returns. */
export interface PrivateCovariance {
  /** The noisy symmetric d x d matrix, row-major. */
  matrix: Float64Array;
  /** d, the number of features. */
  dimension: number;
  /** The per-entry sensitivity profile the noise is calibrated to (see covarianceSensitivity). */
  sensitivity: Float64Array;
  /** The calibration used; its scales are per upper-triangle entry, in the profile's order. */
  calibration: GaussianCalibration | LaplaceCalibration;
}

/** Eigenvalues (largest first) and eigenvectors (columns) of a symmetric matrix. */
export interface SymmetricEigen {
  /** The d eigenvalues, largest first. */
  values: Float64Array;
  /** d x d row-major; column j (entries j, d + j, 2d + j, ...) is the unit eigenvector of values[j]. */
  vectors: Float64Array;
}

/** Options of syntheticPcaData. */
export interface SyntheticPcaOptions {
  /** Rows (users). */
  n: number;
  /** Dimension of each row. */
  d: number;
  /** Rank of the dominant subspace, 1 <= k <= d. */
  k: number;
  /** Standard deviation of the isotropic noise relative to the signal, before normalising (default 0.5). */
  noise?: number;
  /** The random source (default: the platform CSPRNG). */
  rng?: Rng;
}

/** What syntheticPcaData returns: unit rows and the true basis. */
export interface SyntheticPcaData {
  /** The n rows, each of unit l2 norm. */
  rows: Float64Array[];
  /** d x k row-major orthonormal basis of the random subspace the rows were drawn around. */
  basis: Float64Array;
}

/** Dimensions: the Gram matrix has d^2 entries in one Float64Array. */
const DIMENSION: Range = { min: 1, max: 4096 };
const ROWS: Range = { min: 1, max: 2 ** 32 };
const DIAGONAL_CLIP: Range = { min: 0, max: 1, minOpen: true };
const OFF_DIAGONAL_CLIP: Range = { min: 0, max: 0.5, minOpen: true };
const NOISE: Range = { min: 0, max: 1e6 };
/** Relative tolerance of the symmetry and orthonormality checks. */
const TOLERANCE = 1e-8;
const MAX_SWEEPS = 60;

function integer(name: string, value: unknown, range: Range): number {
  const x = numberIn(name, value, range);
  if (!Number.isInteger(x)) throw new RangeError(`dpnoise: \`${name}\` must be an integer; got ${x}.`);
  return x;
}

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
 */
export function covarianceSensitivity(d: number, clip?: CovarianceClip): Float64Array {
  const dim = integer('d', d, DIMENSION);
  const c = readClip(clip);
  const profile = new Float64Array((dim * (dim + 1)) / 2);
  for (let i = 0, e = 0; i < dim; i++) {
    profile[e++] = c.diagonal;
    for (let j = i + 1; j < dim; j++) profile[e++] = c.offDiagonal;
  }
  return profile;
}

/** The rows as Float64Arrays of one length d, every entry finite. */
function readRows(data: unknown): { rows: Float64Array[]; d: number } {
  if (!Array.isArray(data)) fail(TypeError, 'data', 'an array of rows (Float64Arrays or arrays of numbers)', data);
  if (data.length === 0) fail(RangeError, 'data.length', 'at least 1', 0);
  const first = vector('data[0]', data[0], FINITE_ENTRIES);
  const d = integer('data[0].length', first.length, DIMENSION);
  const rows = [first];
  for (let r = 1; r < data.length; r++) rows.push(vector(`data[${r}]`, data[r], FINITE_ENTRIES, { length: d }));
  return { rows, d };
}

function fail(ErrorType: typeof TypeError | typeof RangeError, name: string, must: string, value: unknown): never {
  throw new ErrorType(`dpnoise: \`${name}\` must be ${must}; got ${describe(value)}.`);
}

/** sum_users clip(x x^T), upper triangle in profile order (limits undefined: no clipping). */
function upperGram(rows: readonly Float64Array[], d: number, limits?: { diagonal: number; offDiagonal: number }): Float64Array {
  const out = new Float64Array((d * (d + 1)) / 2);
  const cd = limits ? limits.diagonal : Infinity;
  const co = limits ? limits.offDiagonal : Infinity;
  for (const x of rows) {
    for (let i = 0, e = 0; i < d; i++) {
      const xi = x[i]!;
      out[e++] += Math.min(xi * xi, cd);
      for (let j = i + 1; j < d; j++) {
        const v = xi * x[j]!;
        out[e++] += v > co ? co : v < -co ? -co : v;
      }
    }
  }
  return out;
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
 */
export function gramMatrix(data: readonly (Float64Array | readonly number[])[], clip?: CovarianceClip): Float64Array {
  const { rows, d } = readRows(data);
  const limits = clip === undefined ? undefined : readClip(clip);
  return mirror(upperGram(rows, d, limits), d);
}

/**
 * Releases X^T X with differential privacy: the d(d+1)/2 upper-triangle entries of the clipped
 * Gram matrix get Gaussian ((epsilon, delta)-DP) or Laplace (epsilon-DP) noise calibrated to the
 * per-entry sensitivities (covarianceSensitivity) with the chosen allocation, and are mirrored to
 * the lower triangle. Neighbouring datasets differ by adding or removing one user (row).
 */
export function privateCovariance(options: PrivateCovarianceOptions): PrivateCovariance {
  const o = readOptions('options', options, ['data', 'epsilon', 'delta', 'mechanism', 'allocation', 'clip', 'rng']);
  const mechanism = oneOf('mechanism', o.mechanism, PCA_MECHANISMS);
  if (mechanism === 'laplace' && o.delta !== undefined) {
    throw new TypeError('dpnoise: `delta` applies to the Gaussian mechanism only; Laplace noise gives pure epsilon-DP.');
  }
  const { rows, d } = readRows(o.data);
  const limits = readClip(o.clip);
  const sensitivity = covarianceSensitivity(d, limits);
  const base = { sensitivity, epsilon: o.epsilon as number, ...(o.allocation === undefined ? {} : { allocation: o.allocation as Allocation }) };
  // The calibrations check epsilon, delta and allocation; sourceOf checks rng; all before any work.
  const calibration = mechanism === 'gaussian'
    ? calibrateGaussian({ ...base, delta: o.delta as number })
    : calibrateLaplace(base);
  const rng = sourceOf(o.rng);

  const upper = upperGram(rows, d, limits);
  const add = mechanism === 'gaussian' ? addGaussianNoise : addLaplaceNoise;
  add(upper, calibration.scales, { rng });
  return { matrix: mirror(upper, d), dimension: d, sensitivity, calibration };
}

/** A d x d row-major Float64Array of finite entries, symmetric to a relative 1e-8. */
function readSymmetric(matrix: unknown, d: number): Float64Array {
  const m = vector('matrix', matrix, FINITE_ENTRIES, { arrays: false, length: d * d });
  let scale = 0;
  for (let e = 0; e < m.length; e++) scale = Math.max(scale, Math.abs(m[e]!));
  for (let i = 0; i < d; i++) {
    for (let j = i + 1; j < d; j++) {
      const gap = Math.abs(m[i * d + j]! - m[j * d + i]!);
      if (gap > TOLERANCE * scale) {
        throw new RangeError(`dpnoise: \`matrix\` must be symmetric; got entries (${i}, ${j}) = ${m[i * d + j]} and (${j}, ${i}) = ${m[j * d + i]}.`);
      }
    }
  }
  return m;
}

/**
 * All eigenvalues and eigenvectors of a symmetric d x d matrix (row-major Float64Array), by cyclic
 * Jacobi rotations: accurate to a few ulps of the largest eigenvalue, O(d^3) per sweep, meant for
 * d up to about 50. Eigenvalues come largest first; each eigenvector's largest-magnitude entry is
 * positive.
 */
export function symmetricEigen(matrix: Float64Array, d: number): SymmetricEigen {
  const n = integer('d', d, DIMENSION);
  const input = readSymmetric(matrix, n);
  // Work on the matrix divided by its largest entry, so that no square overflows or underflows.
  let scale = 0;
  for (let e = 0; e < input.length; e++) scale = Math.max(scale, Math.abs(input[e]!));
  const unit = scale === 0 ? 1 : scale;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) a[i * n + j] = 0.5 * (input[i * n + j]! / unit + input[j * n + i]! / unit);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;

  let total = 0;
  for (let e = 0; e < a.length; e++) total += a[e]! * a[e]!;
  for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (!(off > 1e-32 * total)) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (apq === 0) continue;
        // After a few sweeps an entry too small to change either diagonal one is dropped.
        const g = 100 * Math.abs(apq);
        if (sweep > 3 && Math.abs(a[p * n + p]!) + g === Math.abs(a[p * n + p]!) && Math.abs(a[q * n + q]!) + g === Math.abs(a[q * n + q]!)) {
          a[p * n + q] = 0;
          a[q * n + p] = 0;
          continue;
        }
        // The rotation J(p, q) with tan t zeroing a_pq in J^T A J (the smaller angle).
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.abs(theta) > 1e150 ? 0.5 / theta : Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < n; r++) {
          const arp = a[r * n + p]!;
          const arq = a[r * n + q]!;
          a[r * n + p] = c * arp - s * arq;
          a[r * n + q] = s * arp + c * arq;
        }
        for (let r = 0; r < n; r++) {
          const apr = a[p * n + r]!;
          const aqr = a[q * n + r]!;
          a[p * n + r] = c * apr - s * aqr;
          a[q * n + r] = s * apr + c * aqr;
        }
        a[p * n + q] = 0;
        a[q * n + p] = 0;
        for (let r = 0; r < n; r++) {
          const vrp = v[r * n + p]!;
          const vrq = v[r * n + q]!;
          v[r * n + p] = c * vrp - s * vrq;
          v[r * n + q] = s * vrp + c * vrq;
        }
      }
    }
  }

  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  const values = Float64Array.from(order, (i) => a[i * n + i]! * unit);
  const vectors = new Float64Array(n * n);
  order.forEach((from, to) => {
    let big = 0;
    for (let r = 0; r < n; r++) if (Math.abs(v[r * n + from]!) > Math.abs(big)) big = v[r * n + from]!;
    const sign = big < 0 ? -1 : 1;
    for (let r = 0; r < n; r++) vectors[r * n + to] = sign * v[r * n + from]!;
  });
  return { values, vectors };
}

/**
 * An orthonormal basis of the top-k eigenspace of a symmetric d x d matrix: d x k row-major,
 * column j the eigenvector of the (j+1)-th largest eigenvalue (largest algebraically, as PCA
 * wants; noise can make small eigenvalues negative).
 */
export function topEigenvectors(matrix: Float64Array, d: number, k: number): Float64Array {
  const n = integer('d', d, DIMENSION);
  const rank = integer('k', k, { min: 1, max: n });
  const { vectors } = symmetricEigen(matrix, n);
  const out = new Float64Array(n * rank);
  for (let r = 0; r < n; r++) for (let j = 0; j < rank; j++) out[r * rank + j] = vectors[r * n + j]!;
  return out;
}

/** A d x k row-major Float64Array with orthonormal columns (to 1e-8). */
function readBasis(name: string, value: unknown, d: number, k: number): Float64Array {
  const u = vector(name, value, FINITE_ENTRIES, { arrays: false, length: d * k });
  for (let a = 0; a < k; a++) {
    for (let b = a; b < k; b++) {
      let dot = 0;
      for (let r = 0; r < d; r++) dot += u[r * k + a]! * u[r * k + b]!;
      if (Math.abs(dot - (a === b ? 1 : 0)) > TOLERANCE) {
        throw new RangeError(`dpnoise: \`${name}\` must have orthonormal columns; got column ${a} . column ${b} = ${dot}.`);
      }
    }
  }
  return u;
}

/**
 * The subspace recovery error SRE = ||(I - U_hat U_hat^T) U||_F^2 / k of an estimated basis
 * `uHat` against the true basis `u` (both d x k row-major with orthonormal columns): 0 for the
 * same subspace, 1 for orthogonal ones, equal to ||U_hat U_hat^T - U U^T||_F^2 / (2k) and to the
 * mean squared sine of the principal angles.
 */
export function subspaceError(uHat: Float64Array, u: Float64Array, d: number, k: number): number {
  const n = integer('d', d, DIMENSION);
  const rank = integer('k', k, { min: 1, max: n });
  const est = readBasis('uHat', uHat, n, rank);
  const truth = readBasis('u', u, n, rank);
  // M = U_hat^T U (k x k); the residual U - U_hat M is computed directly, not as k - ||M||_F^2,
  // so that tiny errors keep their relative accuracy.
  const m = new Float64Array(rank * rank);
  for (let a = 0; a < rank; a++) {
    for (let b = 0; b < rank; b++) {
      let dot = 0;
      for (let r = 0; r < n; r++) dot += est[r * rank + a]! * truth[r * rank + b]!;
      m[a * rank + b] = dot;
    }
  }
  let sum = 0;
  for (let r = 0; r < n; r++) {
    for (let b = 0; b < rank; b++) {
      let x = truth[r * rank + b]!;
      for (let a = 0; a < rank; a++) x -= est[r * rank + a]! * m[a * rank + b]!;
      sum += x * x;
    }
  }
  return Math.min(1, sum / rank);
}

/**
 * Synthetic data in the spirit of the "fully random model" (Soltanolkotabi and Candes): a
 * uniformly random k-dimensional subspace of R^d, each row a standard Gaussian point of that
 * subspace (scaled to unit expected norm) plus isotropic Gaussian noise of relative size `noise`,
 * then normalised to unit l2 norm. Use a seeded `rng` for reproducible data.
 */
export function syntheticPcaData(options: SyntheticPcaOptions): SyntheticPcaData {
  const o = readOptions('options', options, ['n', 'd', 'k', 'noise', 'rng']);
  const n = integer('n', o.n, ROWS);
  const d = integer('d', o.d, DIMENSION);
  const k = integer('k', o.k, { min: 1, max: d });
  const noise = o.noise === undefined ? 0.5 : numberIn('noise', o.noise, NOISE);
  const rng = sourceOf(o.rng);

  // A Gaussian d x k matrix, orthonormalised column by column (modified Gram-Schmidt, twice).
  const basis = gaussianNoise(d * k, 1, { rng });
  for (let j = 0; j < k; j++) {
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < j; i++) {
        let dot = 0;
        for (let r = 0; r < d; r++) dot += basis[r * k + i]! * basis[r * k + j]!;
        for (let r = 0; r < d; r++) basis[r * k + j]! -= dot * basis[r * k + i]!;
      }
      let norm = 0;
      for (let r = 0; r < d; r++) norm += basis[r * k + j]! ** 2;
      norm = Math.sqrt(norm);
      for (let r = 0; r < d; r++) basis[r * k + j]! /= norm;
    }
  }

  const coefficients = gaussianNoise(n * k, 1 / Math.sqrt(k), { rng });
  const isotropic = gaussianNoise(n * d, noise / Math.sqrt(d), { rng });
  const rows: Float64Array[] = [];
  for (let u = 0; u < n; u++) {
    const x = isotropic.slice(u * d, (u + 1) * d);
    for (let r = 0; r < d; r++) {
      for (let j = 0; j < k; j++) x[r]! += basis[r * k + j]! * coefficients[u * k + j]!;
    }
    let norm = 0;
    for (let r = 0; r < d; r++) norm += x[r]! * x[r]!;
    norm = Math.sqrt(norm);
    // A zero row (probability 0) stays zero: it is within the unit ball all the same.
    if (norm > 0) for (let r = 0; r < d; r++) x[r]! /= norm;
    rows.push(x);
  }
  return { rows, basis };
}
