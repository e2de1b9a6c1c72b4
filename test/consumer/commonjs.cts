// A CommonJS TypeScript user of the published package: require() gets dist/index.d.cts and
// dist/aggregate/index.d.cts, type-checked by test/runtimes/commonjs.test.ts under `module: node16`
// (where the ES declarations could not be required).
import dpnoise = require('dpnoise');
import tables = require('dpnoise/aggregate');
import type { GaussianCalibration, Rng } from 'dpnoise';
import type { AggregateResult } from 'dpnoise/aggregate';

const rng: Rng = dpnoise.createRng({ seed: 1 });
const calibration: GaussianCalibration = dpnoise.calibrateGaussian({ sensitivity: [1, 2], epsilon: 1, delta: 1e-6 });
export const noise: Promise<Float64Array> = dpnoise.gaussianNoiseParallel(2, calibration.scales, { rng, threads: 2 });
// The budget and the generator of require('dpnoise') serve require('dpnoise/aggregate'): one build, one state.
export const released: Promise<AggregateResult> = tables.aggregate({
  epsilon: 1,
  budget: dpnoise.createBudget({ epsilon: 1 }),
  table: [{ x: 1 }],
  count: true,
  rng,
});
