// Synthetic data for private PCA experiments: rows around a random low-dimensional subspace.
import { frozenResult } from '../core/frozen.js';
import { integerIn, numberIn, type Range, readOptions } from '../core/validate.js';
import { sourceOf, type Rng } from '../noise/random.js';
import { gaussianNoise } from '../noise/samplers.js';
import { MATRIX_DIMENSION } from './subspaces.js';

const ROWS: Range = { min: 1, max: 2 ** 32 };
const NOISE: Range = { min: 0, max: 1e6 };

/**
 * Options of syntheticPcaData.
 *
 * @group Applications
 */
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

/**
 * What syntheticPcaData returns: unit rows and the true basis.
 *
 * @group Applications
 */
export interface SyntheticPcaData {
  /** The n rows, each of unit l2 norm. */
  rows: Float64Array[];
  /** d x k row-major orthonormal basis of the random subspace the rows were drawn around. */
  basis: Float64Array;
}

/**
 * Synthetic data in the spirit of the "fully random model" (Soltanolkotabi and Candes): a
 * uniformly random k-dimensional subspace of R^d, each row a standard Gaussian point of that
 * subspace (scaled to unit expected norm) plus isotropic Gaussian noise of relative size `noise`,
 * then normalised to unit l2 norm. Use a seeded `rng` for reproducible data.
 *
 * @example
 * ```ts
 * import { createRng, syntheticPcaData } from 'dpnoise';
 *
 * const rng = createRng({ seed: 1 });
 * const { rows, basis } = syntheticPcaData({ n: 1000, d: 10, k: 2, rng });
 * // 1000 unit rows of length 10, and a 10 x 2 orthonormal basis.
 * console.log(rows.length, basis.length);
 * ```
 *
 * @group Applications
 */
export function syntheticPcaData(options: SyntheticPcaOptions): SyntheticPcaData {
  const o = readOptions('options', options, ['n', 'd', 'k', 'noise', 'rng']);
  const n = integerIn('n', o.n, ROWS);
  const d = integerIn('d', o.d, MATRIX_DIMENSION);
  const k = integerIn('k', o.k, { min: 1, max: d });
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
  return frozenResult({ rows, basis }, ['basis']); // data for experiments: the caller's own arrays
}
