// The eigen-solver and the subspace recovery error (src/applications/subspaces.ts).
import { describe, expect, it } from 'vitest';
import { subspaceError, symmetricEigen, topEigenvectors } from '../../src/applications/subspaces.js';
import { syntheticPcaData } from '../../src/applications/synthetic-pca.js';
import { createRng } from '../../src/index.js';
import { EPS, expectClose, expectNear } from '../helpers.js';

/** A random orthogonal n x n matrix (row-major): the library's orthonormal basis with k = n. */
function randomOrthogonal(n: number, seed: string): Float64Array {
  return syntheticPcaData({ n: 1, d: n, k: n, rng: createRng({ seed }) }).basis;
}

/** Q diag(values) Q^T, symmetrised exactly. */
function withSpectrum(q: Float64Array, values: readonly number[]): Float64Array {
  const n = values.length;
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = i; j < n; j++) {
      let s = 0;
      for (let l = 0; l < n; l++) s += q[i * n + l]! * values[l]! * q[j * n + l]!;
      a[i * n + j] = s;
      a[j * n + i] = s;
    }
  }
  return a;
}

/** Columns 0..k-1 of an n x n row-major matrix, as n x k. */
function columns(m: Float64Array, n: number, k: number): Float64Array {
  return Float64Array.from({ length: n * k }, (_, e) => m[Math.floor(e / k) * n + (e % k)]!);
}

describe('the symmetric eigen-solver', () => {
  it('solves small known matrices', () => {
    // One Jacobi rotation. Eigenvalues within two ulps of the largest, 3 (an ulp there is 2 EPS):
    // 4 EPS (measured 2 EPS; earlier closeTo(_, 14), 22.5 EPS); unit vectors orthogonal to 4 EPS
    // (measured exact) and within two ulps of sqrt(1/2) (an ulp there is EPS / 2): EPS (measured
    // one ulp; earlier toBeCloseTo(_, 15), 2.25 EPS).
    const two = symmetricEigen(new Float64Array([2, 1, 1, 2]), 2);
    [3, 1].forEach((x, i) => {
      expectNear(two.values[i]!, x, 4 * EPS, `eigenvalue ${i}`);
    });
    expect(Math.abs(two.vectors[0]! * two.vectors[2]! + two.vectors[1]! * two.vectors[3]!)).toBeLessThanOrEqual(4 * EPS);
    expectNear(two.vectors[0]!, Math.SQRT1_2, EPS, 'vector 0');
    expectNear(two.vectors[2]!, Math.SQRT1_2, EPS, 'vector 2');
    // A diagonal matrix: its entries sorted, largest algebraic first (negative ones last).
    const diag = symmetricEigen(new Float64Array([1, 0, 0, 0, -5, 0, 0, 0, 3]), 3);
    expect(Array.from(diag.values)).toEqual([3, 1, -5]);
    expect(Array.from(diag.vectors)).toEqual([0, 1, 0, 0, 0, 1, 1, 0, 0]);
    expect(Array.from(symmetricEigen(new Float64Array([7]), 1).values)).toEqual([7]);
    expect(Array.from(symmetricEigen(new Float64Array(9), 3).values)).toEqual([0, 0, 0]);
    expect(Array.from(topEigenvectors(new Float64Array([1, 0, 0, 4]), 2, 1))).toEqual([0, 1]);
    // No overflow or underflow at the ends of the double range.
    // One rotation: a few roundings, 4 EPS of the largest eigenvalue (measured 0.75 EPS and exact;
    // earlier 1e-15).
    for (const s of [1e300, 1e-300]) {
      const { values } = symmetricEigen(new Float64Array([s, s, s, s]), 2);
      expectClose(values[0]!, 2 * s, 4 * EPS, `scale ${s}`);
      expect(Math.abs(values[1]!)).toBeLessThanOrEqual(4 * EPS * s);
    }
  });

  it('recovers a known spectrum and its eigenvectors (d = 30, with a repeated eigenvalue)', () => {
    const d = 30;
    const values = Array.from({ length: d }, (_, i) => (i < 3 ? 100 - 10 * i : i === 3 ? 50 : i === 4 ? 50 : 20 - i));
    const q = randomOrthogonal(d, 'spectrum');
    const a = withSpectrum(q, values);
    const { values: got, vectors } = symmetricEigen(a, d);
    const sorted = [...values].sort((x, y) => y - x);
    // Errors in units of ||A|| = 100: the matrix built here rounds each entry (a sum of 30
    // products), and Jacobi adds a few ulps of ||A||: 64 EPS ||A|| for the eigenvalues and the
    // residuals A v - lambda v (measured 25 and 11.2 EPS ||A||), 128 EPS for V^T V = I, dot
    // products of 30 terms after many rotations (measured 32 EPS). Earlier: 1e-12 ||A|| and 1e-13.
    const NORM = 100;
    got.forEach((x, i) => {
      expect(Math.abs(x - sorted[i]!)).toBeLessThanOrEqual(64 * EPS * NORM);
    });
    // A v = lambda v and V^T V = I.
    for (let j = 0; j < d; j++) {
      for (let r = 0; r < d; r++) {
        let av = 0;
        for (let c = 0; c < d; c++) av += a[r * d + c]! * vectors[c * d + j]!;
        expect(Math.abs(av - got[j]! * vectors[r * d + j]!)).toBeLessThanOrEqual(64 * EPS * NORM);
      }
      for (let l = j; l < d; l++) {
        let dot = 0;
        for (let r = 0; r < d; r++) dot += vectors[r * d + j]! * vectors[r * d + l]!;
        expect(Math.abs(dot - (j === l ? 1 : 0))).toBeLessThanOrEqual(128 * EPS);
      }
    }
    // The top-3 subspace is that of the first three columns of Q. The SRE is a mean squared sine
    // of the principal angles, each about ||E|| / gap with ||E|| <= 64 EPS ||A|| (above) and the gap
    // 80 - 50 = 30: 213 EPS, so (256 EPS)^2 (measured (26 EPS)^2; earlier 1e-25 = (1424 EPS)^2).
    expect(subspaceError(topEigenvectors(a, d, 3), columns(q, d, 3), d, 3)).toBeLessThanOrEqual((256 * EPS) ** 2);
  });
});

describe('the subspace recovery error', () => {
  it('is 0 for the exact subspace, whatever its basis, and 1 for an orthogonal one', () => {
    const d = 12;
    const q = randomOrthogonal(d, 'basis');
    const u = columns(q, d, 4);
    // The basis is orthonormal to a few EPS, so the SRE of the same subspace is at most (4 EPS)^2
    // (measured (1.2 EPS)^2 and (1.4 EPS)^2; earlier 1e-30 = (4.5 EPS)^2).
    expect(subspaceError(u, u, d, 4)).toBeLessThanOrEqual((4 * EPS) ** 2);
    // Another basis of the same subspace: columns rotated by 0.7 rad in the plane of columns 0, 1.
    const [c, s] = [Math.cos(0.7), Math.sin(0.7)];
    const rotated = Float64Array.from(u);
    for (let r = 0; r < d; r++) {
      rotated[r * 4] = c * u[r * 4]! - s * u[r * 4 + 1]!;
      rotated[r * 4 + 1] = s * u[r * 4]! + c * u[r * 4 + 1]!;
    }
    expect(subspaceError(rotated, u, d, 4)).toBeLessThanOrEqual((4 * EPS) ** 2);
    // Spectrum 12, 11, ..., 1: ||E|| <= 64 EPS ||A|| = 768 EPS over the gap 9 - 8 = 1, so
    // (1024 EPS)^2 (measured (6.5 EPS)^2; earlier 1e-25 = (1424 EPS)^2).
    const a = withSpectrum(
      q,
      Array.from({ length: d }, (_, i) => d - i),
    );
    expect(subspaceError(topEigenvectors(a, d, 4), u, d, 4)).toBeLessThanOrEqual((1024 * EPS) ** 2);
    // A few roundings of sums of squares near 1: 4 EPS (measured exact; earlier toBeCloseTo(1, 14)).
    expectNear(
      subspaceError(
        Float64Array.from({ length: d * 4 }, (_, e) => q[Math.floor(e / 4) * d + 4 + (e % 4)]!),
        u,
        d,
        4,
      ),
      1,
      4 * EPS,
      'orthogonal subspaces',
    );
  });

  it('is the mean squared sine of the principal angles, and ||P_hat - P||_F^2 / (2k)', () => {
    const theta = 0.3;
    const u = new Float64Array([1, 0, 0, 1, 0, 0]); // e1, e2 in R^3
    const uHat = new Float64Array([Math.cos(theta), 0, 0, 1, Math.sin(theta), 0]);
    const sre = subspaceError(uHat, u, 3, 2);
    // A few roundings on each side: 4 EPS (measured 0.72 EPS; earlier 1e-14).
    expectClose(sre, Math.sin(theta) ** 2 / 2, 4 * EPS, 'SRE');
    const projector = (b: Float64Array) =>
      Float64Array.from({ length: 9 }, (_, e) => b[Math.floor(e / 3) * 2]! * b[(e % 3) * 2]! + b[Math.floor(e / 3) * 2 + 1]! * b[(e % 3) * 2 + 1]!);
    const [p, pHat] = [projector(u), projector(uHat)];
    // Nine squared differences summed here: 8 EPS (measured exact; earlier 1e-13).
    expectClose(sre, pHat.reduce((sum, x, e) => sum + (x - p[e]!) ** 2, 0) / 4, 8 * EPS, 'projector distance');
  });
});

describe('bad input', () => {
  const cases: [() => unknown, typeof TypeError | typeof RangeError, string | RegExp][] = [
    [() => symmetricEigen(new Float64Array([1, 2, 3, 4]), 2), RangeError, 'dpnoise: `matrix` must be symmetric; got entries (0, 1) = 2 and (1, 0) = 3.'],
    [() => symmetricEigen(new Float64Array([1, 2, 3]), 2), RangeError, 'dpnoise: `matrix.length` must be 4 (one entry per coordinate); got 3.'],
    [() => symmetricEigen([1, 0, 0, 1] as never, 2), TypeError, 'dpnoise: `matrix` must be a Float64Array; got an array of length 4.'],
    [() => symmetricEigen(new Float64Array([1, Infinity, Infinity, 1]), 2), RangeError, 'dpnoise: `matrix[1]` must be a finite number; got Infinity.'],
    [() => topEigenvectors(new Float64Array([1, 0, 0, 1]), 2, 3), RangeError, 'dpnoise: `k` must be a number >= 1 and <= 2; got 3.'],
    [
      () => subspaceError(new Float64Array([1, 1]), new Float64Array([1, 0]), 2, 1),
      RangeError,
      'dpnoise: `uHat` must have orthonormal columns; got column 0 . column 0 = 2.',
    ],
    [
      () => subspaceError(new Float64Array([1, 0]), new Float64Array([1, 0, 0]), 2, 1),
      RangeError,
      'dpnoise: `u.length` must be 2 (one entry per coordinate); got 3.',
    ],
  ];
  it.each(cases.map(([call, ErrorType, message], i) => [i, call, ErrorType, message] as const))('case %i throws', (_i, call, ErrorType, message) => {
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });
});
