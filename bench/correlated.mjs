// Benchmark group "Correlated sums": one release of correlatedSum (d sums and the count, shared
// term added in the sampling pass) next to plain Gaussian noise added to d values, both with the
// CSPRNG and seeded. A release copies the sums, so it is compared with addGaussianNoise on a copy.
import { addGaussianNoise, correlatedSum, createRng } from 'dpnoise';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Correlated sums';

const DIMENSIONS = [1e6, 1e7];

export async function run(ctx) {
  const rows = [];
  for (const d of DIMENSIONS) {
    ctx.log(`  d = ${fmtK(d)} ...`);
    const sums = new Float64Array(d).fill(1000);
    const mechanism = correlatedSum({ dimension: d, epsilon: 1, delta: 1e-6, mode: 'continuous' });
    for (const [label, rng] of [
      ['CSPRNG', undefined],
      ['seeded', createRng({ seed: 1 })],
    ]) {
      const options = rng ? { rng } : undefined;
      const [release, plain] = ctx.measureEach(
        [() => mechanism.release(sums, 5000, options).sums, () => addGaussianNoise(Float64Array.from(sums), mechanism.independentScale, options)],
        { units: d, seconds: d >= 1e7 ? 1.5 : 0.6, batches: 5 },
      );
      rows.push([fmtK(d), label, fmt(release.perUnit * 1e9), fmt(plain.perUnit * 1e9), times(release.perUnit, plain.perUnit)]);
    }
  }
  return [
    {
      heading: 'release(sums, count) against plain Gaussian noise: ns per coordinate',
      text:
        "correlatedSum({ dimension: d, epsilon: 1, delta: 1e-6, mode: 'continuous' }).release(sums, count) returns noisy copies of the sums and the count (the default, grid mode, is in the group 'Grid mode'). " +
        'The comparison adds plain Gaussian noise to a copy of the same d values (Float64Array.from + addGaussianNoise). Aim: a release costs what Gaussian noise of the same length costs (ratio near 1).',
      columns: ['d', 'source', 'release ns/coord', 'plain ns/coord', 'release ÷ plain'],
      rows,
    },
  ];
}
