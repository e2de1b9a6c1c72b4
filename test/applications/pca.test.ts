import { describe, expect, it } from 'vitest';
import { covarianceSensitivity, gramMatrix, privateCovariance } from '../../src/applications/pca.js';
import { subspaceError, topEigenvectors } from '../../src/applications/subspaces.js';
import { syntheticPcaData } from '../../src/applications/synthetic-pca.js';
import {
  addGaussianNoise,
  calibrateGaussian,
  createBudget,
  createRng,
  gaussianMechanism,
  gaussianMu,
  gaussianNoise,
  laplaceMechanism,
} from '../../src/index.js';
import { EPS, expectClose, expectNear, expectWithheld, SAFETY, watchedArray } from '../helpers.js';

/**
 * The Gram matrix's upper triangle as privateCovariance sums it: each contribution x_i x_j rounded
 * half up to a multiple of `quantum` (exact integer sums; here computed with BigInt, independently).
 */
function quantizedUpper(rows: ArrayLike<number>[], quantum: number, clip = { diagonal: 1, offDiagonal: 0.5 }): Float64Array {
  const d = rows[0]!.length;
  const sums: bigint[] = [];
  const clipped = (v: number, c: number) => Math.min(c, Math.max(v, -c));
  const step = (v: number) => BigInt(Math.floor(v / quantum + 0.5)); // exact for these values: v / quantum far from .5 ties
  for (let i = 0; i < d; i++) {
    for (let j = i; j < d; j++) {
      sums.push(rows.reduce((s, x) => s + step(clipped(x[i]! * x[j]!, i === j ? clip.diagonal : clip.offDiagonal)), 0n));
    }
  }
  return Float64Array.from(sums, (s) => Number(s) * quantum);
}

/** The upper triangle of a symmetric d x d matrix in profile order. */
function upper(m: Float64Array, d: number): Float64Array {
  const out: number[] = [];
  for (let i = 0; i < d; i++) for (let j = i; j < d; j++) out.push(m[i * d + j]!);
  return Float64Array.from(out);
}

describe('the sensitivity profile of the upper triangle of X^T X', () => {
  it('is 1 on the diagonal and 1/2 off it, d(d+1)/2 entries in row-major (i <= j) order', () => {
    expect(Array.from(covarianceSensitivity(1))).toEqual([1]);
    expect(Array.from(covarianceSensitivity(4))).toEqual([1, 0.5, 0.5, 0.5, 1, 0.5, 0.5, 1, 0.5, 1]);
    for (const d of [2, 7, 30]) {
      const p = covarianceSensitivity(d);
      expect(p.length).toBe((d * (d + 1)) / 2);
      expect(p.filter((x) => x === 1).length).toBe(d);
      expect(p.filter((x) => x === 0.5).length).toBe((d * (d - 1)) / 2);
    }
  });

  it('takes clip levels, which bound every change of one user whatever the row', () => {
    expect(Array.from(covarianceSensitivity(3, { diagonal: 0.25, offDiagonal: 0.1 }))).toEqual([0.25, 0.1, 0.1, 0.25, 0.1, 0.25]);
    expect(Array.from(covarianceSensitivity(2, { offDiagonal: 0.2 }))).toEqual([1, 0.2, 1]);
    const d = 6;
    const big = gaussianNoise(40 * d, 3, { rng: createRng({ seed: 'rows' }) });
    const rows = Array.from({ length: 40 }, (_, r) => big.slice(r * d, (r + 1) * d));
    for (const clip of [undefined, { diagonal: 0.3, offDiagonal: 0.05 }]) {
      const profile = covarianceSensitivity(d, clip);
      // One user's contribution to each entry, which is what adding or removing them changes.
      for (const row of rows) {
        upper(gramMatrix([row], clip ?? {}), d).forEach((x, e) => {
          expect(Math.abs(x)).toBeLessThanOrEqual(profile[e]!);
        });
      }
    }
    // Unit rows are not changed by the default levels.
    const unit = syntheticPcaData({ n: 50, d, k: 2, rng: createRng({ seed: 'unit' }) }).rows;
    expect(gramMatrix(unit, {})).toEqual(gramMatrix(unit));
  });
});

describe('gramMatrix', () => {
  it('is X^T X', () => {
    const rows = [[1, 2, 3], [0, -1, 0.5], new Float64Array([2, 0, -2])];
    const g = gramMatrix(rows);
    for (let i = 0; i < 3; i++) {
      // Exact: sums of three products of small integers and halves (earlier toBeCloseTo(_, 14)).
      for (let j = 0; j < 3; j++)
        expectNear(
          g[i * 3 + j]!,
          rows.reduce((s, x) => s + x[i]! * x[j]!, 0),
          0,
          `entry (${i}, ${j})`,
        );
    }
  });
});

describe('privateCovariance', () => {
  const d = 8;
  const { rows } = syntheticPcaData({ n: 300, d, k: 2, rng: createRng({ seed: 'pc-data' }) });
  const exact = gramMatrix(rows);

  it('releases the upper triangle through the mechanisms, exact on a grid by default, and mirrors it', () => {
    for (const allocation of ['optimal', 'iid'] as const) {
      const g = privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'gaussian', allocation, rng: createRng({ seed: 7 }) });
      expect(g.dimension).toBe(d);
      // The clip levels 1 and 1/2 are whole grid steps: the sensitivities are exactly them.
      expect(Array.from(g.sensitivity)).toEqual(Array.from(covarianceSensitivity(d)));
      const m = gaussianMechanism({ sensitivity: g.sensitivity, epsilon: 1, delta: 1e-5, allocation });
      expect(g.calibration.mode).toBe('grid');
      expect(g.calibration.scales).toEqual(m.scales);
      expect(g.calibration.privacy.epsilon(1e-5)).toBeLessThanOrEqual(1);
      expect(Array.from(upper(g.matrix, d))).toEqual(Array.from(m.release(quantizedUpper(rows, m.grid!), { rng: createRng({ seed: 7 }) })));
      for (const x of g.matrix) expect(Number.isInteger(x / m.grid!)).toBe(true);
      for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) expect(g.matrix[i * d + j]).toBe(g.matrix[j * d + i]);

      const l = privateCovariance({ data: rows, epsilon: 2, noise: 'laplace', allocation, rng: createRng({ seed: 8 }) });
      const lm = laplaceMechanism({ sensitivity: l.sensitivity, epsilon: 2, allocation });
      expect(l.calibration.noise).toBe('laplace');
      expect(l.calibration.privacy.epsilon(1e-10)).toBeLessThanOrEqual(2);
      expect(Array.from(upper(l.matrix, d))).toEqual(Array.from(lm.release(quantizedUpper(rows, lm.grid!), { rng: createRng({ seed: 8 }) })));

      // mode 'continuous' (simulations): the calibrated scales added in floating point to the
      // exact sums of contributions rounded to 2^-20.
      const c = privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'gaussian', allocation, mode: 'continuous', rng: createRng({ seed: 7 }) });
      expect(Array.from(c.sensitivity)).toEqual(Array.from(covarianceSensitivity(d)));
      const calibration = calibrateGaussian({ sensitivity: c.sensitivity, epsilon: 1, delta: 1e-5, allocation });
      expect(c.calibration.scales).toEqual(calibration.scales);
      expect(Array.from(upper(c.matrix, d))).toEqual(
        Array.from(addGaussianNoise(quantizedUpper(rows, 2 ** -20), calibration.scales, { rng: createRng({ seed: 7 }) })),
      );
    }
  });

  it('sums the rounded contributions exactly: the released sums are those of the rows, not of their order', () => {
    const quantum = 2 ** -11; // the default grid here
    const exactSums = quantizedUpper(rows, quantum);
    const reversed = quantizedUpper(rows.slice().reverse(), quantum);
    expect(exactSums).toEqual(reversed);
    // and within half a quantum per user of the unrounded Gram matrix
    upper(exact, d).forEach((x, e) => {
      expect(Math.abs(exactSums[e]! - x)).toBeLessThanOrEqual((rows.length * quantum) / 2);
    });
  });

  it('iid noise is ||lambda||_2 / mu0 (Gaussian) or ||lambda||_1 / eps (Laplace); optimal scales differ on and off the diagonal', () => {
    const K = (d * (d + 1)) / 2;
    const l2 = Math.sqrt(d + (K - d) / 4);
    const l1 = d + (K - d) / 2;
    const continuous = { mode: 'continuous' } as const;
    const g = privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'gaussian', allocation: 'iid', ...continuous }).calibration;
    // The iid scales are raised by SAFETY, plus a few roundings: 4 EPS. (The sums are exact, so no
    // summation bound is added, and nothing depends on the number of rows.)
    const raised = SAFETY + 4 * EPS;
    expectClose(g.scales[0]!, l2 / gaussianMu(1, 1e-5), raised, 'Gaussian iid');
    expect(new Set(g.scales).size).toBe(1);
    expectClose(
      privateCovariance({ data: rows, epsilon: 0.5, noise: 'laplace', allocation: 'iid', ...continuous }).calibration.scales[1]!,
      l1 / 0.5,
      raised,
      'Laplace iid',
    );
    // A ratio of two scales, each a power of its sensitivity times one constant: 4 EPS (measured
    // 0.71 EPS and exact; earlier 1e-14).
    const go = privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'gaussian', ...continuous }).calibration.scales;
    expectClose(go[0]! / go[1]!, Math.SQRT2, 4 * EPS, 'Gaussian optimal: sigma ~ sqrt(lambda)');
    const lo = privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', ...continuous }).calibration.scales;
    expectClose(lo[0]! / lo[1]!, Math.cbrt(2), 4 * EPS, 'Laplace optimal: b ~ lambda^(1/3)');
  });

  it('clips each contribution and calibrates to the clip levels', () => {
    const clip = { diagonal: 0.2, offDiagonal: 0.05 };
    const r = privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', clip, rng: createRng({ seed: 9 }) });
    const lm = laplaceMechanism({ sensitivity: [0.2, 0.05], epsilon: 1 });
    // The clip levels rounded up to whole grid steps.
    expect(r.sensitivity[0]).toBe(lm.grid! * Math.ceil(0.2 / lm.grid!));
    expect(r.sensitivity[1]).toBe(lm.grid! * Math.ceil(0.05 / lm.grid!));
    expect(Array.from(r.calibration.scales)).toEqual(Array.from(laplaceMechanism({ sensitivity: covarianceSensitivity(d, clip), epsilon: 1 }).scales));
    const reference = laplaceMechanism({ sensitivity: r.sensitivity, epsilon: 1, grid: lm.grid! });
    expect(Array.from(upper(r.matrix, d))).toEqual(Array.from(reference.release(quantizedUpper(rows, lm.grid!, clip), { rng: createRng({ seed: 9 }) })));
  });
});

describe('DP-PCA on a fully random model (journal section VI-B)', () => {
  it('optimal per-entry noise gives a lower mean SRE than iid noise, for Gaussian and for Laplace', () => {
    const [n, d, k, trials] = [2000, 10, 2, 40];
    const { rows } = syntheticPcaData({ n, d, k, noise: 1, rng: createRng({ seed: 'pca-model' }) });
    const truth = topEigenvectors(gramMatrix(rows), d, k);
    for (const [mechanism, epsilon, delta] of [
      ['gaussian', 1, 1e-5],
      ['laplace', 2, undefined],
    ] as const) {
      const mean: Record<string, number> = {};
      for (const allocation of ['iid', 'optimal'] as const) {
        // The same seed for both allocations: the same standard draws, scaled differently.
        const rng = createRng({ seed: `pca-noise-${mechanism}` });
        let sum = 0;
        for (let t = 0; t < trials; t++) {
          const { matrix } = privateCovariance({ data: rows, epsilon, ...(delta === undefined ? {} : { delta }), noise: mechanism, allocation, rng });
          const sre = subspaceError(topEigenvectors(matrix, d, k), truth, d, k);
          expect(sre).toBeGreaterThan(0);
          sum += sre;
        }
        mean[allocation] = sum / trials;
      }
      expect(mean.optimal!, mechanism).toBeLessThan(mean.iid!);
      expect(mean.iid!, mechanism).toBeLessThan(0.2); // far from a random subspace (1 - k/d = 0.8)
    }
  });
});

describe('bad input', () => {
  const rows = [
    [0.6, 0.8],
    [1, 0],
  ];
  const cases: [() => unknown, typeof TypeError | typeof RangeError, string | RegExp][] = [
    [() => covarianceSensitivity(0), RangeError, 'dpnoise: `d` must be a number >= 1 and <= 4096; got 0.'],
    [() => covarianceSensitivity(2.5), RangeError, 'dpnoise: `d` must be an integer; got 2.5.'],
    [() => covarianceSensitivity('3' as unknown as number), TypeError, 'dpnoise: `d` must be a number; got "3".'],
    [() => covarianceSensitivity(3, { diagonal: 1.5 }), RangeError, 'dpnoise: `clip.diagonal` must be a number > 0 and <= 1; got 1.5.'],
    [() => covarianceSensitivity(3, { offDiagonal: 0 }), RangeError, 'dpnoise: `clip.offDiagonal` must be a number > 0 and <= 0.5; got 0.'],
    [() => covarianceSensitivity(3, { diag: 1 } as never), TypeError, /`clip` has an unknown option `diag`/],
    [() => privateCovariance(undefined as never), TypeError, 'dpnoise: `options` must be an options object; got undefined.'],
    [() => privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'gaussian', seed: 1 } as never), TypeError, /unknown option `seed`/],
    [
      () => privateCovariance({ data: rows, epsilon: 1, noise: 'staircase' as never }),
      RangeError,
      "dpnoise: `noise` must be one of 'gaussian', 'laplace'; got \"staircase\".",
    ],
    [
      () => privateCovariance({ data: rows, epsilon: 1, delta: 1e-5, noise: 'laplace' }),
      TypeError,
      /`delta` applies to \(epsilon, delta\)-DP, which this noise does not give; give `epsilon` \(pure epsilon-DP\)/,
    ],
    [() => privateCovariance({ data: rows, epsilon: 1, noise: 'gaussian' }), TypeError, 'dpnoise: `delta` must be a number; got undefined.'],
    [() => privateCovariance({ data: rows, epsilon: -1, delta: 1e-5, noise: 'gaussian' }), RangeError, /`epsilon` must be a number >= 0/],
    [() => privateCovariance({ data: rows, epsilon: 0, noise: 'laplace' }), RangeError, 'dpnoise: `epsilon` must be a finite number > 0; got 0.'],
    [
      () => privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', allocation: 'equal' as never }),
      RangeError,
      /`allocation` must be one of 'optimal', 'iid', 'spr'/,
    ],
    [() => privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', rng: {} as never }), TypeError, /`rng` must be a generator made by createRng\(\)/],
    [
      () => privateCovariance({ data: new Float64Array(4) as never, epsilon: 1, noise: 'laplace' }),
      TypeError,
      'dpnoise: `data` must be an array of rows (Float64Arrays or arrays of numbers); got a Float64Array.',
    ],
    [() => privateCovariance({ data: [], epsilon: 1, noise: 'laplace' }), RangeError, 'dpnoise: `data.length` must be at least 1; got 0.'],
    [
      () => privateCovariance({ data: [[1, 0], [1]], epsilon: 1, noise: 'laplace' }),
      RangeError,
      'dpnoise: `data[1].length` must be 2 (one entry per coordinate); got 1.',
    ],
    [
      () =>
        privateCovariance({
          data: [
            [1, 0],
            [0, NaN],
          ],
          epsilon: 1,
          noise: 'laplace',
        }),
      RangeError,
      'dpnoise: `data[1][1]` must be a finite number; got NaN.',
    ],
    [
      () => privateCovariance({ data: [[1, 0], 'x'] as never, epsilon: 1, noise: 'laplace' }),
      TypeError,
      /`data\[1\]` must be a Float64Array or an array of numbers/,
    ],
    [() => gramMatrix([[]]), RangeError, 'dpnoise: `data[0].length` must be at least 1; got 0.'],
  ];
  it.each(cases.map(([call, ErrorType, message], i) => [i, call, ErrorType, message] as const))('case %i throws', (_i, call, ErrorType, message) => {
    expect(call).toThrow(ErrorType);
    expect(call).toThrow(message);
  });

  it('the data are private: a bad row or entry is named by its place, never shown', async () => {
    const release = (data: unknown) => () => privateCovariance({ data: data as never, epsilon: 1, noise: 'laplace' });
    await expectWithheld(
      release([
        [1, 0],
        [0, 'SECRET-123'],
      ]),
      TypeError,
      ['`data[1][1]` must be a number'],
      ['SECRET', '123'],
    );
    await expectWithheld(release([[1, 0], 'SECRET-123']), TypeError, ['`data[1]` must be a Float64Array or an array of numbers'], ['SECRET', '123']);
    await expectWithheld(release('SECRET-123'), TypeError, ['`data` must be an array of rows'], ['SECRET', '123']);
    await expectWithheld(
      () =>
        gramMatrix([
          [1, 0],
          [true, 0],
        ] as never),
      TypeError,
      ['`data[1][0]`'],
      ['true'],
    );
  });

  it('throws before drawing noise: a bad argument leaves the generator unused', () => {
    const rng = createRng({ seed: 'unused' });
    expect(() =>
      privateCovariance({
        data: [
          [1, 0],
          [0, NaN],
        ],
        epsilon: 1,
        noise: 'laplace',
        rng,
      }),
    ).toThrow(RangeError);
    const a = privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', rng }).matrix;
    const b = privateCovariance({ data: rows, epsilon: 1, noise: 'laplace', rng: createRng({ seed: 'unused' }) }).matrix;
    expect(a).toEqual(b);
  });
});

describe('privateCovariance with a budget: charged once its public inputs are checked, before a row is read', () => {
  const rows = () => [Float64Array.of(0.6, 0.8), Float64Array.of(1, 0), Float64Array.of(0, 1)];
  /** Rows whose entries count their reads, and whose second row holds a NaN. */
  const watched = () => {
    const counter = { reads: 0 };
    return { data: [watchedArray([0.6, 0.8], counter), watchedArray([Number.NaN, 0], counter)], reads: () => counter.reads };
  };

  it('charges the release its privacy, once', () => {
    const budget = createBudget({ epsilon: 3, delta: 1e-5 });
    const r = privateCovariance({ data: rows(), epsilon: 1, delta: 1e-6, noise: 'gaussian', budget, rng: createRng({ seed: 1 }) });
    const alone = createBudget({ epsilon: 3, delta: 1e-5 });
    alone.spend(r.privacy);
    expect(budget.releases).toBe(1);
    expect(budget.spent).toEqual(alone.spent);
  });

  it('throws the budget refusal, reading no entry (a NaN unseen), when the budget cannot pay', () => {
    const budget = createBudget({ epsilon: 0.5 });
    const { data, reads } = watched();
    expect(() => privateCovariance({ data, epsilon: 1, noise: 'laplace', budget })).toThrow(/exceed the budget/);
    expect(reads()).toBe(0);
    expect(budget.releases).toBe(0);
  });

  it('refuses a fake budget before any read; a bad entry after the charge (checking it read it)', () => {
    const { data, reads } = watched();
    expect(() => privateCovariance({ data, epsilon: 1, noise: 'laplace', budget: { spend: () => undefined } as never })).toThrow(TypeError);
    expect(reads()).toBe(0);
    const budget = createBudget({ epsilon: 2 });
    expect(() => privateCovariance({ data, epsilon: 1, noise: 'laplace', budget })).toThrow(/data\[1\]\[0\]/);
    expect(budget.releases).toBe(1);
  });
});
