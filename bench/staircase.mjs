// Benchmark group "Staircase": staircaseNoise (a new array of staircase noise with per-coordinate
// step widths, budgets and shapes) against laplaceNoise with per-coordinate scales, both into
// fresh arrays of the same length, with the CSPRNG and seeded; calibrateStaircase's split; and one
// draw of the joint staircase (staircaseNormNoise) against laplaceNoise of the same dimension.
import { calibrateStaircase, createRng, laplaceNoise, staircaseNoise, staircaseNormMechanism, staircaseNormNoise } from 'dpnoise';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Staircase';

const LENGTHS = [1e5, 1e6];
const DIMENSIONS = [10, 100, 1000];

export async function run(ctx) {
  const samples = [];
  const splits = [];
  for (const K of LENGTHS) {
    ctx.log(`  K = ${fmtK(K)} ...`);
    const sensitivity = Float64Array.from({ length: K }, (_, i) => 1 / (1 + (i % 100)));
    const started = performance.now();
    const shape = calibrateStaircase({ sensitivity, epsilon: K / 2, errorPower: 1 }); // eps_i near 0.5: where the shapes differ
    splits.push([fmtK(K), fmt((performance.now() - started) / 1000)]);
    const epsilons = shape.epsilons; // a copy on each read: read once
    const scales = Float64Array.from(sensitivity, (s, i) => s / epsilons[i]); // Laplace b_i for the same eps_i
    for (const [label, rng] of [
      ['CSPRNG', undefined],
      ['seeded', createRng({ seed: 1 })],
    ]) {
      const options = rng ? { rng } : undefined;
      const [stair, laplace] = ctx.measureEach([() => staircaseNoise(shape, options), () => laplaceNoise(K, scales, options)], {
        units: K,
        seconds: K >= 1e6 ? 1.5 : 0.6,
        batches: 5,
      });
      samples.push([fmtK(K), label, fmt(stair.perUnit * 1e9), fmt(laplace.perUnit * 1e9), times(stair.perUnit, laplace.perUnit)]);
    }
  }
  const joint = [];
  for (const d of DIMENSIONS) {
    ctx.log(`  joint staircase, d = ${d} ...`);
    for (const norm of ['l1', 'l2']) {
      const m = staircaseNormMechanism({ sensitivity: new Float64Array(d).fill(1), epsilon: 5, norm, mode: 'continuous' });
      const [stair, laplace] = ctx.measureEach([() => staircaseNormNoise(m), () => laplaceNoise(d, 1)], { units: 1, seconds: 0.5, batches: 5 });
      joint.push([String(d), norm, fmt(stair.perUnit * 1e6), fmt(laplace.perUnit * 1e6), times(stair.perUnit, laplace.perUnit)]);
    }
  }
  return [
    {
      heading: 'staircaseNoise against laplaceNoise: ns per coordinate, fresh arrays',
      text:
        'sensitivity 1/(1 + i % 100); staircaseNoise(calibrateStaircase({ sensitivity, epsilon: K / 2, errorPower: 1 })) (per-coordinate widths, budgets near 0.5 and shapes; ' +
        'three random words per coordinate: an exponential by the ziggurat, then the position and the part) against laplaceNoise(K, b_i) with b_i = lambda_i / eps_i (one word). ' +
        'Both allocate their output; staircaseNoise also copies its three parameter arrays from the calibration.',
      columns: ['K', 'source', 'staircase ns/coord', 'Laplace ns/coord', 'staircase ÷ Laplace'],
      rows: samples,
    },
    {
      heading: 'calibrateStaircase: seconds per call',
      text: 'The optimal l1 split of epsilon = K / 2 over the same profile (the Illinois method on the log of the sum, over a table of -V_1 made once, the budgets, shapes and moments in WebAssembly chunk by chunk). The last run in JavaScript took 0.313 s at 1e5 and 2.60 s at 1e6.',
      columns: ['K', 'seconds'],
      rows: splits,
    },
    {
      heading: 'staircaseNormNoise against laplaceNoise: microseconds per draw of d coordinates',
      text:
        'One joint staircase draw (staircaseNormMechanism({ sensitivity: d ones, epsilon: 5, norm, mode: "continuous" }), CSPRNG): the radius (its mixture over the counts of ' +
        'size-biased geometrics, d^2/2 steps, kept from call to call for the same parameters; then up to d + 1 geometrics) and d Gaussian (l2) or Laplace (l1) draws, normalised; ' +
        'against laplaceNoise(d, 1), one new array of d values each.',
      columns: ['d', 'norm', 'joint µs/draw', 'Laplace µs/draw', 'joint ÷ Laplace'],
      rows: joint,
    },
  ];
}
