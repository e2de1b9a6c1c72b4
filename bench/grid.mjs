// Benchmark group "Grid mode": a mechanism's release in grid mode (the default: exact discrete
// Laplace or Gaussian noise on a power-of-two grid) against continuous mode, same profile and
// privacy, with the CSPRNG, at the sizes of issue 19's table. Aims (issue 19): grid within 2x of
// continuous per coordinate, on fresh arrays (a release's own) and on a
// reused one (release(query, { out })).
import { correlatedSum, gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { performance } from 'node:perf_hooks';
import { fmt, fmtK, times } from './format.mjs';

export const title = 'Grid mode';

const KS = [1e3, 1e5, 1e6];
const AIM = 2;
/** Grid ÷ continuous when issue 19 was filed (its table, same cases; none at K = 1e3), for the before and after. */
const FILED = {
  Laplace: { 1e5: 3.2, 1e6: 3.3 },
  Gaussian: { 1e5: 6.3, 1e6: 9.6 },
  'correlated sums': { 1e5: 11.4, 1e6: 8.3 },
};

export async function run(ctx) {
  const rows = [];
  const verdicts = [];
  for (const K of KS) {
    ctx.log(`  K = ${fmtK(K)} ...`);
    const sensitivity = new Float64Array(K);
    for (let i = 0; i < K; i++) sensitivity[i] = 1 / (1 + (i % 100));
    const query = new Float64Array(K).fill(10);
    const mechanisms = [
      ['Laplace', (mode) => laplaceMechanism({ sensitivity, epsilon: 1, mode }), (m, o) => m.release(query, o), AIM],
      ['Gaussian', (mode) => gaussianMechanism({ sensitivity, epsilon: 1, delta: 1e-6, mode }), (m, o) => m.release(query, o), AIM],
      ['correlated sums', (mode) => correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6, mode }), (m, o) => m.release(query, 100, o), AIM],
    ];
    // Every release allocates its output; until the heap has grown to hold them, a fresh array's
    // pages fault in, and the first rows measured would pay for that where the later do not.
    // So all the releases run for a while before any row is timed.
    const pairs = mechanisms.map(([, make]) => [make('continuous'), make('grid')]);
    const out = { out: new Float64Array(K) };
    const start = performance.now();
    while (performance.now() - start < 1500) {
      for (const [k, [, , release]] of mechanisms.entries()) for (const m of pairs[k]) release(m);
    }
    for (const [k, [name, , release, aim]] of mechanisms.entries()) {
      const [continuous, grid] = pairs[k];
      const [c, g, cReused, gReused] = ctx.measureEach(
        [() => release(continuous), () => release(grid), () => release(continuous, out), () => release(grid, out)],
        { units: K, seconds: K >= 1e6 ? 2 : 0.8, batches: 7 },
      );
      const fresh = g.perUnit / c.perUnit;
      const reused = gReused.perUnit / cReused.perUnit;
      const filed = FILED[name][K];
      rows.push([
        name,
        fmtK(K),
        String(grid.grid),
        fmt(c.perUnit * 1e9),
        fmt(g.perUnit * 1e9),
        times(g.perUnit, c.perUnit),
        fmt(cReused.perUnit * 1e9),
        fmt(gReused.perUnit * 1e9),
        times(gReused.perUnit, cReused.perUnit),
        filed === undefined ? '' : `${filed}×`,
        `${fresh <= aim ? 'yes' : '**no**'} / ${reused <= aim ? 'yes' : '**no**'}`,
      ]);
      verdicts.push(`${name} at K = ${fmtK(K)}: ${fmt(fresh)}× fresh, ${fmt(reused)}× reused (aim ${aim}×)`);
    }
  }
  return [
    {
      heading: 'Mechanism release: grid mode (the default) against continuous, ns per coordinate (CSPRNG)',
      text:
        'laplaceMechanism({ sensitivity: 1/(1 + i % 100), epsilon: 1 }), gaussianMechanism({ ..., delta: 1e-6 }) and correlatedSum({ dimension: K, epsilon: 1, delta: 1e-6 }): ' +
        "release with the default mode 'grid' and with mode: 'continuous', interleaved, medians of 7 batches, the CSPRNG; each release is timed twice: returning a fresh array (*fresh*), and into one reused array (*reused*: release(query, { out })), which pays no allocation. All of them run for 1.5 s before the first row at each K is timed, so that every row sees a heap grown to hold the fresh outputs. The default grid is the power of two at most 2^-10 of the smallest sensitivity " +
        '(for correlated sums C/g in (256, 512], released on g / (2s)). Grid mode rounds the query to the grid and adds exact discrete Laplace or discrete Gaussian noise ' +
        '(docs/noise.md, "Exact discrete noise"): the Laplace by a geometric inversion, one logarithm per draw; the Gaussian at these scales by cell trials (docs/noise.md, "Cells"), about 1.07 trials and random words per draw, each one exp; decided in double precision, with exact arithmetic when it cannot be sure; the SIMD build takes two draws at a time. ' +
        `Every draw does the same work whatever its noise (the option fixedWork, which had its own slower path when the issue was filed, is gone). ` +
        `Aims (issue 19): grid within ${AIM}× of continuous; "when filed" is the ratio in issue 19's own table (fresh arrays, one process, interleaved, median of 7).`,
      columns: [
        'noise',
        'K',
        'grid',
        'continuous ns/coord, fresh',
        'grid ns/coord, fresh',
        'grid ÷ continuous, fresh',
        'continuous ns/coord, reused',
        'grid ns/coord, reused',
        'grid ÷ continuous, reused',
        'when filed (fresh)',
        'within the aim (fresh / reused)',
      ],
      rows,
      notes: [`${verdicts.join('; ')}.`],
    },
  ];
}
