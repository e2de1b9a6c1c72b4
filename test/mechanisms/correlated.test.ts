import { describe, expect, it } from 'vitest';
import { correlatedSum, createRng, gaussianMu } from '../../src/index.js';
import { EPS, expectClose, expectCovariance, expectWithheld, SAFETY } from '../helpers.js';

/** The library's rounding of every scale to the safe side (src/core/domains.ts). */
const S = 1 + SAFETY;

/** The library and this test evaluate one closed form in different orders: a few roundings on each side (measured at most 0.97 EPS). */
const CLOSED_FORM = 4 * EPS;

/** Solves A x = b by Gaussian elimination with partial pivoting (A is copied). */
function solve(A: number[][], b: number[]): number[] {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r]![c]!) > Math.abs(M[p]![c]!)) p = r;
    [M[c], M[p]] = [M[p]!, M[c]!];
    for (let r = c + 1; r < n; r++) {
      const f = M[r]![c]! / M[c]![c]!;
      for (let k = c; k <= n; k++) M[r]![k]! -= f * M[c]![k]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = M[r]![n]!;
    for (let k = r + 1; k < n; k++) s -= M[r]![k]! * x[k]!;
    x[r] = s / M[r]![r]!;
  }
  return x;
}

/**
 * Covariance of the joint noise (d sums, count) from the scales: sums share one term with the
 * count (shared g: sharedScale on each sum, countScale on the count) plus independent terms.
 */
function jointCovariance(d: number, shared: number, independent: number, count: number): number[][] {
  return Array.from({ length: d + 1 }, (_, i) =>
    Array.from({ length: d + 1 }, (_, j) => {
      if (i < d && j < d) return shared * shared + (i === j ? independent * independent : 0);
      if (i === d && j === d) return count * count;
      return shared * count;
    }),
  );
}

/** Squared Mahalanobis distance of adding a record with m entries at C (the rest 0), and count + 1. */
function distance2(sigma: number[][], d: number, m: number, C: number): number {
  const delta = [...Array.from({ length: d }, (_, j) => (j < m ? C : 0)), 1];
  const x = solve(sigma, delta);
  return delta.reduce((s, v, i) => s + v * x[i]!, 0);
}

describe('correlated sums under add/remove neighbours (docs/mechanisms.md, "Correlated sums")', () => {
  it('scales, count scale and gain against an independent computation (t = sqrt(d))', () => {
    for (const [d, eps, delta, C] of [
      [1, 1, 1e-5, 1],
      [10, 0.5, 1e-6, 2],
      [10_000, 2, 1e-8, 0.1],
    ] as const) {
      const m = correlatedSum({ mode: 'continuous', dimension: d, epsilon: eps, delta, bound: C });
      const mu = gaussianMu(eps, delta);
      const s = Math.sqrt(d);
      expect(m.mu).toBe(mu);
      expectClose(m.sumScale, (S * C * (s + 1)) / (2 * mu), CLOSED_FORM, 'sumScale');
      expectClose(m.sharedScale, (S * C * Math.sqrt((s + 1) / 4)) / mu, CLOSED_FORM, 'sharedScale');
      expectClose(m.independentScale, (S * C * Math.sqrt((d + s) / 4)) / mu, CLOSED_FORM, 'independentScale');
      expectClose(m.countScale, (S * Math.sqrt(s + 1)) / mu, CLOSED_FORM, 'countScale');
      expectClose(m.mse, (S * S * d * C * C * (s + 1) ** 2) / (4 * mu * mu), CLOSED_FORM, 'mse');
      expectClose(m.gain, (4 * d) / (s + 1) ** 2, CLOSED_FORM, 'gain');
    }
    expect(correlatedSum({ mode: 'continuous', dimension: 1e8, rho: 1 }).gain).toBeGreaterThan(3.999);
  });

  it('rho-zCDP means mu = sqrt(2 rho)', () => {
    expect(correlatedSum({ mode: 'continuous', dimension: 5, rho: 0.125 }).mu).toBe(0.5);
  });

  it("the sup Mahalanobis distance over every vertex count is exactly 1; the poster's variance exceeds it", () => {
    for (const d of [1, 2, 10, 30]) {
      for (const t of [undefined, 0.3, 7]) {
        const C = 2.5;
        const m = correlatedSum({ mode: 'continuous', dimension: d, rho: 0.5, bound: C, ...(t === undefined ? {} : { tradeoff: t }) });
        const sigma = jointCovariance(d, m.sharedScale, m.independentScale, m.countScale);
        const distances = Array.from({ length: d + 1 }, (_, k) => distance2(sigma, d, k, C));
        // SAFETY on every scale puts D^2 at 1 / (1 + 2^-36)^2, 2 SAFETY below 1; Gaussian
        // elimination on the (d + 1)-square covariance (d <= 30) rounds: 256 EPS (measured
        // 2 SAFETY + 57 EPS; earlier 1e-10).
        distances.forEach((D2) => {
          expectClose(D2, 1, 2 * SAFETY + 256 * EPS, `d = ${d}, t = ${t}`);
        });
      }
    }
    // Power: Var(eta) = sqrt(d + 1) / 4 as printed on the poster gives D = 1.0302 at d = 10.
    const d = 10;
    const m = correlatedSum({ mode: 'continuous', dimension: d, rho: 0.5 });
    const posterShared = Math.sqrt(Math.sqrt(d + 1) / 4);
    const sigma = jointCovariance(d, posterShared, m.independentScale, 2 * posterShared);
    const sup = Math.sqrt(Math.max(...Array.from({ length: d + 1 }, (_, k) => distance2(sigma, d, k, 1))));
    expect(sup.toFixed(4)).toBe('1.0302');
  });

  it('with a seed, the empirical covariance of many releases matches the design', () => {
    const d = 4;
    const m = correlatedSum({ mode: 'continuous', dimension: d, rho: 0.5, bound: 1 });
    const rng = createRng({ seed: 'covariance' });
    const releases = 40_000;
    const sums = new Float64Array(d).fill(10);
    const noise: number[][] = [];
    for (let r = 0; r < releases; r++) {
      const out = m.release(sums, 100, { rng });
      noise.push([...Array.from(out.sums, (x) => x - 10), out.count! - 100]);
    }
    const empirical = (i: number, j: number) => noise.reduce((s, v) => s + v[i]! * v[j]!, 0) / releases;
    const design = jointCovariance(d, m.sharedScale, m.independentScale, m.countScale);
    expectCovariance(empirical, design, releases);
    // Power: independent noise of the same variances would have no covariance between sums.
    const se01 = Math.sqrt((design[0]![0]! * design[1]![1]!) / releases);
    expect(empirical(0, 1)).toBeGreaterThan(5 * se01);
  });

  it('k-sparse records: the numbers of docs/mechanisms.md, "Correlated sums" (d = 100, k = 5: MSE 492.19 against 500 spherical; k = 1 spherical)', () => {
    const m = correlatedSum({ mode: 'continuous', dimension: 100, rho: 0.5, sparsity: 5 });
    expect(m.mse.toFixed(2)).toBe('492.19');
    expectClose(m.gain, (500 * S * S) / m.mse, CLOSED_FORM, 'gain');
    const k = 5,
      d = 100,
      r = Math.sqrt(k * (d - k) * (d - 1));
    expectClose(m.mse, S * S * (k / d) * (k + (d - 1) * (d - k) + 2 * r), CLOSED_FORM, 'closed-form MSE');
    // Sherman-Morrison: (V I + V_eta 1 1^T)^-1 = (I - V_eta 1 1^T / (V + d V_eta)) / V, so a record
    // with j entries at C = 1 has D^2 = (j - V_eta j^2 / (V + d V_eta)) / V; its sup over j <= k is 1.
    for (const [dim, sparsity] of [
      [100, 5],
      [100, 50],
      [10, 3],
      [1000, 40],
      [100, 100],
    ] as const) {
      const s = correlatedSum({ mode: 'continuous', dimension: dim, rho: 0.5, sparsity });
      const V = s.independentScale ** 2,
        Veta = s.sharedScale ** 2;
      const D2 = Array.from({ length: sparsity }, (_, j) => (j + 1 - (Veta * (j + 1) ** 2) / (V + dim * Veta)) / V);
      const sup = Math.max(...D2);
      expect(sup, `d = ${dim}, k = ${sparsity}`).toBeLessThanOrEqual(1);
      // Tight: 2 SAFETY below 1 (SAFETY on both scales), plus rounding: 8 EPS (measured
      // 2 SAFETY + 0 EPS; earlier 1e-10).
      expect(sup).toBeGreaterThan(1 - (2 * SAFETY + 8 * EPS));
    }
    const spherical = correlatedSum({ mode: 'continuous', dimension: 100, rho: 0.5, sparsity: 1 });
    expect(spherical.sharedScale).toBe(0); // V = 0 at k = 1, exactly (earlier toBeCloseTo(0, 12))
    expectClose(spherical.mse, 100 * S * S, CLOSED_FORM, 'spherical MSE');
    expect(correlatedSum({ mode: 'continuous', dimension: 50, rho: 0.5, sparsity: 50 }).sharedScale).toBeGreaterThan(0);
    expect(m.countScale).toBe(0);
  });

  it('release adds noise to copies, leaves its inputs untouched, and is reproducible under a seed', () => {
    const m = correlatedSum({ mode: 'continuous', dimension: 3, epsilon: 1, delta: 1e-6, bound: 5 });
    const sums = [10, 20, 30];
    const a = m.release(sums, 7, { rng: createRng({ seed: 1 }) });
    const b = m.release(Float64Array.from(sums), 7, { rng: createRng({ seed: 1 }) });
    expect(sums).toEqual([10, 20, 30]);
    expect(a.sums).toEqual(b.sums);
    expect(a.count).toBe(b.count);
    expect(a.count).not.toBe(7);
    expect(m.release(sums, 7).sums).not.toEqual(a.sums);
    const sparse = correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, sparsity: 1 });
    expect(sparse.release(sums).count).toBeUndefined();
  });

  it('replace-one neighbours: the standard mechanism, count released exactly', () => {
    const m = correlatedSum({ mode: 'continuous', dimension: 16, rho: 0.5, bound: 2, neighbours: 'replace-one' });
    expect(m.sharedScale).toBe(0);
    expectClose(m.independentScale, 2 * 4 * S, CLOSED_FORM, 'independentScale');
    expect(m.gain).toBe(1);
    expect(m.countScale).toBe(0);
    expect(m.release(new Float64Array(16), 42).count).toBe(42);
  });
});

describe('bad input throws before any noise is drawn', () => {
  const m = correlatedSum({ mode: 'continuous', dimension: 3, rho: 1 });
  it.each<[string, () => unknown, typeof TypeError, RegExp]>([
    ['dimension 0', () => correlatedSum({ mode: 'continuous', dimension: 0, rho: 1 }), RangeError, /`dimension` must be a number >= 1/],
    ['fractional dimension', () => correlatedSum({ mode: 'continuous', dimension: 2.5, rho: 1 }), RangeError, /`dimension` must be an integer; got 2.5/],
    ['dimension a string', () => correlatedSum({ mode: 'continuous', dimension: '3' as never, rho: 1 }), TypeError, /`dimension` must be a number/],
    [
      'sparsity 0',
      () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, sparsity: 0 }),
      RangeError,
      /`sparsity` must be a number >= 1 and <= 3; got 0/,
    ],
    ['sparsity above d', () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, sparsity: 4 }), RangeError, /`sparsity`/],
    [
      'rho and epsilon',
      () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, epsilon: 1, delta: 1e-5 } as never),
      TypeError,
      /give one privacy target: `epsilon` and `delta`, `mu` or `rho`/,
    ],
    ['no privacy', () => correlatedSum({ mode: 'continuous', dimension: 3 } as never), TypeError, /`epsilon` must be a number/],
    ['negative bound', () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, bound: -1 }), RangeError, /`bound`/],
    [
      'sparse under replace-one',
      () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, sparsity: 1, neighbours: 'replace-one' }),
      RangeError,
      /add-remove neighbours only/,
    ],
    [
      'unknown neighbours',
      () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, neighbours: 'swap' as never }),
      RangeError,
      /`neighbours` must be one of/,
    ],
    [
      'negative count',
      () => m.release([1, 2, 3], -1),
      RangeError,
      /`count` must be an integer >= 0 and <= 9007199254740991; got a number \(private, not shown\)\./,
    ],
    [
      'fractional count',
      () => m.release([1, 2, 3], 1.5),
      RangeError,
      /`count` must be an integer >= 0 and <= 9007199254740991; got a number \(private, not shown\)\./,
    ],
    ['missing count', () => m.release([1, 2, 3]), TypeError, /`count` must be a number; got undefined/],
    ['sums of the wrong length', () => m.release([1, 2], 1), RangeError, /`sums.length` must be 3/],
    ['non-finite sums', () => m.release([1, NaN, 3], 1), RangeError, /`sums\[1\]` must be a finite number; got NaN/],
    ['infinite sums', () => m.release(Float64Array.from([1, 2, Infinity]), 1), RangeError, /`sums\[2\]`/],
    // Privacy levels whose noise doubles cannot hold are refused when the mechanism is built.
    ['epsilon 0, delta 1e-200', () => correlatedSum({ mode: 'continuous', dimension: 3, epsilon: 0, delta: 1e-200 }), RangeError, /noise scales beyond 1e150/],
    [
      'a huge bound with a tiny mu',
      () => correlatedSum({ mode: 'continuous', dimension: 3, epsilon: 0, delta: 1e-10, bound: 1e150 }),
      RangeError,
      /noise scales beyond 1e150/,
    ],
    ['a subnormal tradeoff', () => correlatedSum({ mode: 'continuous', dimension: 3, rho: 1, tradeoff: 1e-320 }), RangeError, /noise scales beyond 1e150/],
    ['the same in grid mode', () => correlatedSum({ dimension: 3, epsilon: 0, delta: 1e-200 }), RangeError, /^dpnoise: grid mode/],
  ])('%s', (_, call, ErrorType, message) => {
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });
});

describe('the record count and the sums are private: errors name them, never their value', () => {
  const m = correlatedSum({ mode: 'continuous', dimension: 3, rho: 1 });
  it.each<[string, () => unknown, typeof TypeError, string, string[]]>([
    ['a fractional count', () => m.release([1, 2, 3], 3.5), RangeError, '`count` must be an integer >= 0', ['3.5']],
    ['a negative count', () => m.release([1, 2, 3], -7), RangeError, '`count` must be an integer >= 0', ['-7']],
    ['a count beyond 2^53', () => m.release([1, 2, 3], 31415926535897932), RangeError, '`count` must be an integer >= 0', ['314159']],
    ['a count as text', () => m.release([1, 2, 3], 'SECRET-123' as never), TypeError, '`count` must be a number', ['SECRET', '123']],
    ['a sum as text', () => m.release([1, 'SECRET-123', 3] as never, 2), TypeError, '`sums[1]` must be a number', ['SECRET', '123']],
  ])('%s', async (_, call, ErrorType, name, secrets) => {
    await expectWithheld(call, ErrorType, [name], secrets);
  });
});
