// A TypeScript user of the published package: type-checked by test/package.test.ts.
import { calibrateGaussian, correlatedSum, createBudget, createRng, gaussianNoise, type GaussianCalibration, type Rng } from 'dpnoise';
import { type AggregateResult, aggregate } from 'dpnoise/aggregate';

const rng: Rng = createRng({ seed: 1 });
const calibration: GaussianCalibration = calibrateGaussian({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6 });
const noise: Float64Array = gaussianNoise(2, calibration.scales, { rng });
const sums: Float64Array = correlatedSum({ dimension: 2, rho: 1 }).release(noise, 10).sums;
export const total: number = sums[0]! + calibration.mu;

// The budget shapes are types: a Gaussian release without delta, or with two budgets, does not
// compile (each @ts-expect-error fails the check if its line does).
// @ts-expect-error Gaussian noise needs delta with epsilon
calibrateGaussian({ sensitivity: [1], epsilon: 1 });
// @ts-expect-error one budget only
calibrateGaussian({ sensitivity: [1], epsilon: 1, delta: 1e-6, rho: 1 });

// The aggregate entry resolves through the package's exports, with its types.
export const released: Promise<AggregateResult> = aggregate({ epsilon: 1, budget: createBudget({ epsilon: 1 }), table: [{ x: 1 }], count: true });
