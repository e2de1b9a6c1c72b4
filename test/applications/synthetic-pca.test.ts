// Synthetic PCA data (src/applications/synthetic-pca.ts).
import { describe, expect, it } from 'vitest';
import { syntheticPcaData } from '../../src/applications/synthetic-pca.js';
import { createRng } from '../../src/index.js';
import { EPS } from '../helpers.js';

describe('syntheticPcaData', () => {
  it('gives unit rows around an orthonormal basis, the same for the same seed', () => {
    const [n, d, k] = [200, 8, 2];
    const { rows, basis } = syntheticPcaData({ n, d, k, noise: 0.1, rng: createRng({ seed: 'synthetic' }) });
    expect(rows).toHaveLength(n);
    // Unit rows: a sum of 8 squares ((d - 1) u = 3.5 EPS) after the normalisation's roundings:
    // 8 EPS (measured 2.5 EPS; earlier 1e-14). The same bound for the orthonormal basis (measured
    // 0.06 EPS).
    for (const x of rows) expect(Math.abs(x.reduce((s, v) => s + v * v, 0) - 1)).toBeLessThanOrEqual(8 * EPS);
    for (let a = 0; a < k; a++) {
      for (let b = a; b < k; b++) {
        let dot = 0;
        for (let r = 0; r < d; r++) dot += basis[r * k + a]! * basis[r * k + b]!;
        expect(Math.abs(dot - (a === b ? 1 : 0))).toBeLessThanOrEqual(8 * EPS);
      }
    }
    // With little noise almost all of each row lies in the subspace: |U^T x|^2 near 1.
    const inside = rows.map((x) => {
      let sum = 0;
      for (let j = 0; j < k; j++) {
        let dot = 0;
        for (let r = 0; r < d; r++) dot += basis[r * k + j]! * x[r]!;
        sum += dot * dot;
      }
      return sum;
    });
    expect(inside.reduce((s, v) => s + v, 0) / n).toBeGreaterThan(0.95); // a property of the model, not rounding (measured 0.973)
    expect(syntheticPcaData({ n, d, k, noise: 0.1, rng: createRng({ seed: 'synthetic' }) }).rows).toEqual(rows);
  });
});

describe('bad input', () => {
  const cases: [() => unknown, typeof TypeError | typeof RangeError, string | RegExp][] = [
    [() => syntheticPcaData({ n: 10, d: 3, k: 4 }), RangeError, 'dpnoise: `k` must be a number >= 1 and <= 3; got 4.'],
    [() => syntheticPcaData({ n: 10, d: 3, k: 1, noise: -1 }), RangeError, 'dpnoise: `noise` must be a number >= 0 and <= 1000000; got -1.'],
  ];
  it.each(cases.map(([call, ErrorType, message], i) => [i, call, ErrorType, message] as const))('case %i throws', (_i, call, ErrorType, message) => {
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });
});
