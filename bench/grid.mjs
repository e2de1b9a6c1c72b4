// Benchmark group "Grid mode": a mechanism's release in grid mode (the default: exact discrete
// Laplace or Gaussian noise on a power-of-two grid) against continuous mode, same profile and
// privacy. Aim: grid within 3x of continuous per coordinate.
import { correlatedSum, createRng, gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Grid mode';

const KS = [1e5, 1e7];
const AIM = 3;

export async function run(ctx) {
  const rows = [];
  const verdicts = [];
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
      for (const [label, rng] of [
        ['CSPRNG', undefined],
        ['seeded', createRng({ seed: 1 })],
      ]) {
        const options = rng ? { rng } : undefined;
        const [c, g] = ctx.measureEach([() => release(continuous, options), () => release(grid, options)], {
          units: K,
          seconds: K >= 1e6 ? 3 : 0.8,
          batches: 5,
        });
        const ratio = g.perUnit / c.perUnit;
        rows.push([
          name,
          fmtK(K),
          label,
          String(grid.grid),
          fmt(c.perUnit * 1e9),
          fmt(g.perUnit * 1e9),
          times(g.perUnit, c.perUnit),
          ratio <= AIM ? 'yes' : '**no**',
        ]);
        if (label === 'CSPRNG') verdicts.push(`${name} at K = ${fmtK(K)}: ${fmt(ratio)}×`);
      }
    }
  }
  return [
    {
      heading: 'Mechanism release: grid mode (the default) against continuous, ns per coordinate',
      text:
        'laplaceMechanism({ sensitivity: 1/(1 + i % 100), epsilon: 1 }), gaussianMechanism({ ..., delta: 1e-6 }) and correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6 }): ' +
        "release with the default mode 'grid' and with mode: 'continuous', interleaved. The default grid is the power of two at most 2^-10 of the smallest sensitivity " +
        '(for correlated sums C/g in (256, 512], released on g / (2s)). Grid mode rounds the query to the grid and adds exact discrete Laplace or discrete Gaussian noise ' +
        '(docs/noise.md, "Exact discrete noise"): a floating-point fast path, one logarithm per discrete Laplace draw and about 1.3 trials per discrete Gaussian draw, ' +
        `with exact arithmetic when it cannot be sure. Aim: grid within ${AIM}× of continuous.`,
      columns: ['noise', 'K', 'source', 'grid', 'continuous ns/coord', 'grid ns/coord', 'grid ÷ continuous', `within ${AIM}×`],
      rows,
      notes: [`With the CSPRNG: ${verdicts.join('; ')}.`],
    },
  ];
}
