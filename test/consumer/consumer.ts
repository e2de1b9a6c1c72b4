// A TypeScript user of the published package: type-checked by test/package.test.ts.
import { calibrateGaussian, correlatedSum, createRng, gaussianNoise, type GaussianCalibration, type Rng } from 'dpnoise';

const rng: Rng = createRng({ seed: 1 });
const calibration: GaussianCalibration = calibrateGaussian({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6 });
const noise: Float64Array = gaussianNoise(2, calibration.scales, { rng });
const sums: Float64Array = correlatedSum({ dimension: 2, rho: 1 }).release(noise, 10).sums;
export const total: number = sums[0]! + calibration.mu;
