// Subspaces of symmetric matrices: all eigenpairs by cyclic Jacobi rotations (meant for d up to
// about 50), the top-k eigenspace that private PCA keeps, and the subspace recovery error
//   SRE = ||(I - U_hat U_hat^T) U||_F^2 / k  =  ||U_hat U_hat^T - U U^T||_F^2 / (2k)  in [0, 1]
// that scores an estimated basis U_hat against the true one U.
import { FINITE_ENTRIES, integerIn, type Range, vector } from '../core/validate.js';

/** Dimensions: a d x d matrix has d^2 entries in one Float64Array. */
export const MATRIX_DIMENSION: Range = { min: 1, max: 4096 };
/** Relative tolerance of the symmetry and orthonormality checks. */
const TOLERANCE = 1e-8;
const MAX_SWEEPS = 60;

/**
 * Eigenvalues (largest first) and eigenvectors (columns) of a symmetric matrix.
 *
 * @group Applications
 */
export interface SymmetricEigen {
  /** The d eigenvalues, largest first. */
  values: Float64Array;
  /** d x d row-major; column j (entries j, d + j, 2d + j, ...) is the unit eigenvector of values[j]. */
  vectors: Float64Array;
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
 *
 * @example
 * ```ts
 * import { symmetricEigen } from 'dpnoise';
 *
 * const { values, vectors } = symmetricEigen(new Float64Array([2, 1, 1, 2]), 2);
 * console.log(values); // [3, 1]
 * console.log(vectors); // columns (1, 1) / sqrt(2) and (1, -1) / sqrt(2)
 * ```
 *
 * @group Applications
 */
export function symmetricEigen(matrix: Float64Array, d: number): SymmetricEigen {
  const n = integerIn('d', d, MATRIX_DIMENSION);
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
 *
 * @example
 * ```ts
 * import { topEigenvectors } from 'dpnoise';
 *
 * const diagonal = new Float64Array([4, 0, 0, 0, 1, 0, 0, 0, 9]);
 * // 3 x 2 row-major, columns e_3 and e_1.
 * console.log(topEigenvectors(diagonal, 3, 2)); // [0, 1, 0, 0, 1, 0]
 * ```
 *
 * @group Applications
 */
export function topEigenvectors(matrix: Float64Array, d: number, k: number): Float64Array {
  const n = integerIn('d', d, MATRIX_DIMENSION);
  const rank = integerIn('k', k, { min: 1, max: n });
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
 *
 * @example
 * ```ts
 * import { subspaceError } from 'dpnoise';
 *
 * const u = new Float64Array([1, 0, 0]); // the x axis of R^3 (3 x 1)
 * const uHat = new Float64Array([Math.SQRT1_2, Math.SQRT1_2, 0]); // 45 degrees off
 * console.log(subspaceError(uHat, u, 3, 1)); // 0.5 = sin^2(45 degrees)
 * ```
 *
 * @group Applications
 */
export function subspaceError(uHat: Float64Array, u: Float64Array, d: number, k: number): number {
  const n = integerIn('d', d, MATRIX_DIMENSION);
  const rank = integerIn('k', k, { min: 1, max: n });
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
