// The API's conventions (README, "Conventions"), checked on every export: each one is classified
// below (a new export without a class fails the first test), and each class's rules are checked
// on a sample call: one options object that refuses unknown options, one budget shape, `rng` in
// the options of the call that draws, arrays as Float64Array or arrays of numbers, frozen results,
// and a genuine `privacy` on everything that releases.
import { describe, expect, it } from 'vitest';
import * as dpnoise from '../src/index.js';

const { compose, createRng } = dpnoise;

type Options = Record<string, unknown>;

/** A function that takes one options object (after its data, for some): a valid call, given extra options. */
interface OptionsCall {
  call: (extra: Options) => unknown;
  /** The budgets it takes: Gaussian ({ epsilon, delta }, { mu }, { rho }), pure ({ epsilon }) or Laplace (pure, or { epsilon, delta } by the accountant). */
  budget?: 'gaussian' | 'pure' | 'laplace';
  /** Its result releases noisy values: `privacy` present and genuine, and `rng` is honoured. */
  releases?: (result: unknown) => unknown;
}

const profile = { sensitivity: [0.5, 1, 2] };
const gaussian = { epsilon: 1, delta: 1e-6 };
const problem = { features: Float64Array.from([1, 0, 0, 1, 1, 1]), labels: [1, 2, 3], loss: 'squared' } as const;
const rows = [
  [0.6, 0.8],
  [1, 0],
];

/** Every options-object export, with a valid call. Budgets are left out of `call` where `budget` says so (the test adds one). */
const OPTIONS: Record<string, OptionsCall> = {
  calibrateGaussian: { call: (o) => dpnoise.calibrateGaussian({ ...profile, ...o } as never), budget: 'gaussian' },
  calibrateLaplace: { call: (o) => dpnoise.calibrateLaplace({ ...profile, ...o } as never), budget: 'laplace' },
  calibrateStaircase: { call: (o) => dpnoise.calibrateStaircase({ ...profile, ...o } as never), budget: 'pure' },
  staircaseNormError: { call: (o) => dpnoise.staircaseNormError({ dimension: 3, norm: 'l2', ...o } as never), budget: 'pure' },
  staircase2dError: { call: (o) => dpnoise.staircase2dError(o as never), budget: 'pure' },
  recommend: { call: (o) => dpnoise.recommend({ ...profile, ...gaussian, ...o } as never) },
  gaussianMechanism: {
    call: (o) => dpnoise.gaussianMechanism({ ...profile, ...o } as never),
    budget: 'gaussian',
    releases: (m) => (m as dpnoise.GaussianMechanism).release([1, 2, 3], { rng: createRng({ seed: 1 }) }),
  },
  laplaceMechanism: {
    call: (o) => dpnoise.laplaceMechanism({ ...profile, ...o } as never),
    budget: 'laplace',
    releases: (m) => (m as dpnoise.LaplaceMechanism).release([1, 2, 3], { rng: createRng({ seed: 1 }) }),
  },
  staircaseMechanism: {
    call: (o) => dpnoise.staircaseMechanism({ ...profile, ...o } as never),
    budget: 'pure',
    releases: (m) => (m as dpnoise.StaircaseMechanism).release([1, 2, 3], { rng: createRng({ seed: 1 }) }),
  },
  staircaseNormMechanism: {
    call: (o) => dpnoise.staircaseNormMechanism({ ...profile, norm: 'l2', mode: 'continuous', ...o } as never),
    budget: 'pure',
    releases: (m) => (m as dpnoise.StaircaseNormMechanism).release([1, 2, 3], { rng: createRng({ seed: 1 }) }),
  },
  staircaseNormNoise: {
    call: (o) =>
      dpnoise.staircaseNormNoise({ norm: 'l1', dimension: 3, normSensitivity: 1, epsilon: 1, gamma: 0.5, ...o } as never, { rng: createRng({ seed: 1 }) }),
  },
  correlatedSum: {
    call: (o) => dpnoise.correlatedSum({ dimension: 3, ...o } as never),
    budget: 'gaussian',
    releases: (m) => (m as dpnoise.CorrelatedSumMechanism).release([1, 2, 3], 4, { rng: createRng({ seed: 1 }) }).sums,
  },
  privateCovariance: {
    call: (o) => dpnoise.privateCovariance({ data: rows, noise: 'gaussian', rng: createRng({ seed: 1 }), ...o } as never),
    budget: 'gaussian',
    releases: (r) => (r as dpnoise.PrivateCovariance).matrix,
  },
  privateCoordinateDescent: {
    call: (o) => dpnoise.privateCoordinateDescent({ ...problem, passes: 2, stepSizes: [1, 1], clip: [1, 1], rng: createRng({ seed: 1 }), ...o } as never),
    budget: 'gaussian',
    releases: (r) => (r as dpnoise.PrivateCoordinateDescentResult).parameters,
  },
  dpsgd: {
    call: (o) => dpnoise.dpsgd({ layerSizes: [2, 3], clipNorms: [1, 2], batch: { rate: 0.1 }, steps: 10, epsilon: 1, delta: 1e-5, ...o } as never),
  },
  perLayerNoise: { call: (o) => dpnoise.perLayerNoise({ layerSizes: [2, 3], clipNorms: [1, 2], noiseMultiplier: 1, ...o } as never) },
  gaussianPrivacy: { call: (o) => dpnoise.gaussianPrivacy({ scales: [1, 2, 3], ...profile, ...o } as never) },
  laplacePrivacy: { call: (o) => dpnoise.laplacePrivacy({ scales: [1, 2, 3], ...profile, ...o } as never) },
  coordinateDescent: { call: (o) => dpnoise.coordinateDescent({ ...problem, passes: 3, ...o } as never) },
  coordinateSmoothness: { call: (o) => dpnoise.coordinateSmoothness({ ...problem, ...o } as never) },
  objective: { call: (o) => dpnoise.objective({ ...problem, ...o } as never, [0, 0]) },
  syntheticPcaData: { call: (o) => dpnoise.syntheticPcaData({ n: 10, d: 3, k: 1, rng: createRng({ seed: 2 }), ...o } as never) },
  createRng: { call: (o) => createRng({ seed: 1, ...o } as never) },
  createBudget: { call: (o) => dpnoise.createBudget({ ...o } as never), budget: 'laplace' },
  subsample: { call: (o) => dpnoise.subsample(dpnoise.gaussianPrivacy({ scales: 2, sensitivity: [1] }), { rate: 0.01, ...o } as never) },
  randomAllocation: { call: (o) => dpnoise.randomAllocation(dpnoise.gaussianPrivacy({ scales: 2, sensitivity: [1] }), { steps: 10, ...o } as never) },
};

/** The samplers: (length | values | out, scales, options); `rng` in the options. */
const SAMPLERS: Record<string, (scales: dpnoise.ScalesArgument, options: Options) => Float64Array | Promise<Float64Array>> = {
  gaussianNoise: (s, o) => dpnoise.gaussianNoise(3, s, o),
  laplaceNoise: (s, o) => dpnoise.laplaceNoise(3, s, o),
  gaussianNoiseInto: (s, o) => dpnoise.gaussianNoiseInto(new Float64Array(3), s, o),
  laplaceNoiseInto: (s, o) => dpnoise.laplaceNoiseInto(new Float64Array(3), s, o),
  addGaussianNoise: (s, o) => dpnoise.addGaussianNoise(new Float64Array(3), s, o),
  addLaplaceNoise: (s, o) => dpnoise.addLaplaceNoise(new Float64Array(3), s, o),
  gaussianNoiseParallel: (s, o) => dpnoise.gaussianNoiseParallel(3, s, o),
  laplaceNoiseParallel: (s, o) => dpnoise.laplaceNoiseParallel(3, s, o),
  addGaussianNoiseParallel: (s, o) => dpnoise.addGaussianNoiseParallel(new Float64Array(3), s, o),
  addLaplaceNoiseParallel: (s, o) => dpnoise.addLaplaceNoiseParallel(new Float64Array(3), s, o),
};

/** Samplers that take per-coordinate parameters (a shape object, arrays of numbers or Float64Arrays) and the options. */
const SHAPED: Record<string, (parameters: (values: number[]) => Float64Array | number[], options: Options) => Float64Array> = {
  staircaseNoise: (parameters, o) =>
    dpnoise.staircaseNoise({ sensitivity: parameters([1, 2, 3]), epsilons: parameters([1, 1, 2]), gammas: parameters([0.5, 0, 1]) }, o),
};

/** Functions of numbers and data, positional by design; compose (a list); init and wasmVector (setup, memory); the constants. */
const POSITIONAL = [
  'erfc',
  'normalSf',
  'normalLogSf',
  'normalIsf',
  'gaussianDelta',
  'gaussianMu',
  'gaussianEpsilon',
  'gini',
  'gramMatrix',
  'covarianceSensitivity',
  'symmetricEigen',
  'topEigenvectors',
  'subspaceError',
  'compose',
  'init',
  'wasmVector',
  'restoreBudget',
  'signBudget',
];
const CONSTANTS = ['ALLOCATIONS', 'LOSSES', 'MODES', 'NEIGHBOURS', 'NOISES', 'NOISE_WEIGHTS'];

describe('the API conventions (README, "Conventions")', () => {
  it('every export is classified here, so a new one meets the conventions before it ships', () => {
    const classified = new Set([...Object.keys(OPTIONS), ...Object.keys(SAMPLERS), ...Object.keys(SHAPED), ...POSITIONAL, ...CONSTANTS]);
    expect(Object.keys(dpnoise).filter((name) => !classified.has(name))).toEqual([]);
    expect([...classified].filter((name) => !(name in dpnoise))).toEqual([]);
    for (const name of CONSTANTS)
      expect(Object.isFrozen((dpnoise as Record<string, unknown>)[name]) || Array.isArray((dpnoise as Record<string, unknown>)[name])).toBe(true);
  });

  const budgets = (kind: OptionsCall['budget']): Options[] =>
    kind === 'gaussian' ? [gaussian, { mu: 0.5 }, { rho: 0.1 }] : kind === 'pure' ? [{ epsilon: 1 }] : kind === 'laplace' ? [{ epsilon: 1 }, gaussian] : [{}];

  it.each(Object.entries(OPTIONS))('%s: one options object, unknown options refused, results frozen', (_name, { call, budget }) => {
    const [first] = budgets(budget);
    const result = call(first!);
    if (typeof result === 'object' && result !== null && !ArrayBuffer.isView(result)) expect(Object.isFrozen(result)).toBe(true);
    expect(() => call({ ...first, notAnOption: 1 })).toThrow(TypeError);
    expect(() => call({ ...first, notAnOption: 1 })).toThrow(/unknown option `notAnOption`/);
  });

  it.each(Object.entries(OPTIONS).filter(([, c]) => c.budget))('%s: one budget shape, and only the budgets its noise can meet', (_name, { call, budget }) => {
    for (const b of budgets(budget)) expect(() => call(b)).not.toThrow();
    const refused =
      budget === 'gaussian'
        ? [{ epsilon: 1 }, { epsilon: 1, delta: 1e-6, mu: 1 }]
        : [...(budget === 'pure' ? [{ epsilon: 1, delta: 1e-6 }] : []), { mu: 1 }, { rho: 1 }];
    for (const b of refused) expect(() => call(b), JSON.stringify(b)).toThrow(/dpnoise: /);
  });

  it.each(Object.entries(OPTIONS).filter(([name, c]) => c.budget && name !== 'createBudget'))(
    '%s: one vocabulary: the target it was given is echoed as `target` (where echoed), the noise as `noise`, never `budget` or `family`',
    (_name, { call, budget }) => {
      for (const b of budgets(budget)) {
        const result = call(b);
        if (typeof result !== 'object' || result === null || ArrayBuffer.isView(result)) continue;
        const keys = Object.keys(result);
        expect(keys).not.toContain('family');
        expect(keys).not.toContain('budget');
        if ('target' in result) expect(result.target).toEqual(b);
      }
    },
  );

  it.each(Object.entries(OPTIONS).filter(([, c]) => c.releases))(
    '%s: releases carry a genuine, frozen privacy object; rng in the options decides the noise',
    (_name, { call, budget, releases }) => {
      const [b] = budgets(budget);
      const result = call(b!) as { privacy: dpnoise.Privacy };
      expect(Object.isFrozen(result.privacy)).toBe(true);
      expect(['pure', 'gdp', 'zcdp', 'approximate']).toContain(result.privacy.kind);
      expect(['noise', 'composition', 'subsampled', 'partition-selection', 'exponential']).toContain(result.privacy.form);
      expect(result.privacy.form === 'noise').toBe(result.privacy.noise !== undefined);
      expect(compose([result.privacy]).epsilon(1e-6)).toBeGreaterThan(0);
      expect(releases!(result)).toEqual(releases!(call(b!)));
    },
  );

  it.each(Object.entries(SAMPLERS))('%s: scales as a number, a Float64Array or an array of numbers; rng in the options', async (_name, sample) => {
    const seeded = () => ({ rng: createRng({ seed: 3 }) });
    const a = await sample([1, 2, 3], seeded());
    expect(await sample(Float64Array.from([1, 2, 3]), seeded())).toEqual(a);
    expect(await sample(2, seeded())).toBeInstanceOf(Float64Array);
    await expect(async () => sample(1, { notAnOption: 1 })).rejects.toThrow(/unknown option `notAnOption`/);
  });

  it.each(Object.entries(SHAPED))('%s: parameters as Float64Arrays or arrays of numbers; rng in the options', (_name, sample) => {
    const seeded = () => ({ rng: createRng({ seed: 3 }) });
    expect(sample((values) => Float64Array.from(values), seeded())).toEqual(sample((values) => values, seeded()));
    expect(() => sample((values) => values, { notAnOption: 1 })).toThrow(/unknown option `notAnOption`/);
  });

  it('arrays in are Float64Arrays or arrays of numbers alike', () => {
    const a = dpnoise.calibrateGaussian({ sensitivity: [0.5, 1], ...gaussian });
    const b = dpnoise.calibrateGaussian({ sensitivity: Float64Array.from([0.5, 1]), ...gaussian });
    expect(a.scales).toEqual(b.scales);
  });
});
