// Benchmark group "Builds": what the SIMD build earns over the scalar one, the price of shipping
// both (the package embeds both and picks SIMD where the engine validates it). The calibration's
// profile sums and the grid-mode samplers' trials (two at a time) have SIMD loops, so those are
// timed on each build; so is the continuous Gaussian sampler, whose fast path and scales' check
// take two or four coordinates at a time.
import { calibrateGaussian, calibrateLaplace, createRng, gaussianMechanism, gaussianNoiseInto, init, laplaceMechanism } from 'dpnoise';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Builds';

const K = 1e6;
/** Rounds alternate between the builds (init() cannot switch within a timed batch); the median counts. */
const ROUNDS = 5;

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

export async function run(ctx) {
  const sensitivity = new Float64Array(K);
  for (let i = 0; i < K; i++) sensitivity[i] = 1 / (1 + (i % 1000));
  const out = new Float64Array(K);
  const scales = Float64Array.from({ length: K }, (_, i) => 0.5 + (i % 10) / 10);
  const rng = createRng({ seed: 1 });
  let call = 0;
  const epsilon = () => 1 + (call++ % 64) * 1e-9; // no two calls see the same input
  // A release draws with the module loaded at the time of the call.
  const query = new Float64Array(K).fill(10);
  const laplace = laplaceMechanism({ sensitivity, epsilon: 1 });
  const gaussian = gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6 });
  const cases = [
    ['calibrateGaussian, optimal, p = 2', () => calibrateGaussian({ sensitivity, epsilon: epsilon(), delta: 1e-6 }).scales],
    ['calibrateGaussian, optimal, p = 1', () => calibrateGaussian({ sensitivity, epsilon: epsilon(), delta: 1e-6, errorPower: 1 }).scales],
    ['calibrateLaplace, optimal, p = 2', () => calibrateLaplace({ sensitivity, epsilon: epsilon() }).scales],
    ['laplaceMechanism release, grid mode (default), seeded', () => laplace.release(query, { rng })],
    ['gaussianMechanism release, grid mode (default), seeded', () => gaussian.release(query, { rng })],
    ['gaussianNoiseInto, seeded, one scale', () => gaussianNoiseInto(out, 1, { rng })],
    ['gaussianNoiseInto, seeded, per-coordinate scales', () => gaussianNoiseInto(out, scales, { rng })],
  ];
  const rows = [];
  for (const [label, fn] of cases) {
    ctx.log(`  ${label} ...`);
    const ns = { simd: [], scalar: [] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const simd of [true, false]) {
        await init({ simd });
        ns[simd ? 'simd' : 'scalar'].push(ctx.measure(fn, { units: K, seconds: 0.4, batches: 5 }).perUnit * 1e9);
      }
    }
    const [simd, scalar] = [median(ns.simd), median(ns.scalar)];
    rows.push([label, fmt(scalar), fmt(simd), times(scalar, simd)]);
  }
  await init();
  const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
  const kB = (name) => fmt(statSync(join(dist, name)).size / 1024);
  return [
    {
      heading: `SIMD build against scalar build, ns per coordinate at K = ${fmtK(K)}`,
      text:
        `The same calls with \`init({ simd: false })\` and \`init({ simd: true })\`, ${ROUNDS} alternating rounds, median. ` +
        `Sizes: dpnoise-scalar.wasm ${kB('dpnoise-scalar.wasm')} kB, dpnoise-simd.wasm ${kB('dpnoise-simd.wasm')} kB ` +
        '(the default entry embeds both as base64, about 4/3 of that each).',
      columns: ['call', 'scalar ns', 'SIMD ns', 'scalar ÷ SIMD'],
      rows,
    },
  ];
}
