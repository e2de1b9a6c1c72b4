// Benchmark group "Staircase": staircaseNoise (a new array of staircase noise with per-coordinate
// step widths, budgets and shapes) against laplaceNoise with per-coordinate scales, both into
// fresh arrays of the same length, with the CSPRNG and seeded; and calibrateStaircase's split.
import { calibrateStaircase, createRng, laplaceNoise, staircaseNoise } from 'dpnoise';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Staircase';

const LENGTHS = [1e5, 1e6];

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
      text: 'The optimal l1 split of epsilon = K / 2 over the same profile (the Illinois method on the multiplier over a table of -V_1 made once, the best shape per coordinate), in JavaScript.',
      columns: ['K', 'seconds'],
      rows: splits,
    },
  ];
}
