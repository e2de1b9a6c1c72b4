// Benchmark group "Grid mode": a mechanism's release in grid mode (exact discrete Laplace or
// Gaussian noise, integer arithmetic) against continuous mode, same profile and privacy.
import { correlatedSum, createRng, gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Grid mode';

const KS = [1e4, 1e5];

export async function run(ctx) {
  const rows = [];
  for (const K of KS) {
    ctx.log(`  K = ${fmtK(K)} ...`);
    const sensitivity = new Float64Array(K);
    for (let i = 0; i < K; i++) sensitivity[i] = 1 / (1 + (i % 100));
    const query = new Float64Array(K).fill(10);
    const mechanisms = [
      ['Laplace', (mode) => laplaceMechanism({ sensitivity, epsilon: 1, mode }), (m, options) => m.release(query, options)],
      ['Gaussian', (mode) => gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode }), (m, options) => m.release(query, options)],
      ['correlated sums', (mode) => correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6, mode }), (m, options) => m.release(query, 100, options)],
    ];
    for (const [name, make, release] of mechanisms) {
      const continuous = make('continuous');
      const grid = make('grid');
      for (const [label, rng] of [['CSPRNG', undefined], ['seeded', createRng({ seed: 1 })]]) {
        const options = rng ? { rng } : undefined;
        const [c, g] = ctx.measureEach([() => release(continuous, options), () => release(grid, options)],
          { units: K, seconds: K >= 1e6 ? 2 : 0.6, batches: 5 });
        rows.push([name, fmtK(K), label, String(grid.grid), fmt(c.perUnit * 1e9), fmt(g.perUnit * 1e9), times(g.perUnit, c.perUnit)]);
      }
    }
  }
  return [{
    heading: 'Mechanism release: grid mode against continuous, ns per coordinate',
    text: 'laplaceMechanism({ sensitivity: 1/(1 + i % 100), epsilon: 1 }), gaussianMechanism({ ..., delta: 1e-6 }) and correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6 }): release in continuous mode and with mode: \'grid\' (default grid: '
      + 'the power of two at most 1/16 of the smallest sensitivity; for correlated sums C/g in (256, 512], released on g / (2s)). Grid mode rounds the query to the grid and adds exact discrete Laplace or Gaussian noise '
      + '(Canonne, Kamath & Steinke 2020) drawn with integer arithmetic: tens of random words and several 64-bit divisions per coordinate.',
    columns: ['noise', 'K', 'source', 'grid', 'continuous ns/coord', 'grid ns/coord', 'grid ÷ continuous'],
    rows,
  }];
}
