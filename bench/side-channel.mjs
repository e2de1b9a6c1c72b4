// Benchmark group "Timing": how much the time of a release says about its noise.
// An observer who sees a release y = x + noise and its duration learns about x only through what
// the duration says about the noise (Jin et al. 2022 recovered noise from rejection samplers'
// timing). Releases of x = 0 are timed one by one and grouped by the size of their noise; if the
// groups' time distributions are as close as sampling alone makes them, time does not separate
// neighbouring inputs. Two-coordinate releases are timed too: the SIMD build draws a pair in its
// lanes and finishes one by one the lanes it cannot decide, so they are grouped by the first
// coordinate's noise.
import { gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { performance } from 'node:perf_hooks';
import { fmt } from './format.mjs';

export const title = 'Timing';

const N = 2_000_000;

/** Kolmogorov-Smirnov distance between two samples. */
function ks(a, b) {
  a.sort((x, y) => x - y);
  b.sort((x, y) => x - y);
  let i = 0;
  let j = 0;
  let d = 0;
  while (i < a.length && j < b.length) {
    if (a[i] <= b[j]) i++;
    else j++;
    d = Math.max(d, Math.abs(i / a.length - j / b.length));
  }
  return d;
}

const median = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];

/** The groups of releases compared, by |noise| in units of the mechanism's scale: the bulk, and the far tail. */
const COMPARISONS = {
  laplace: [
    ['|noise| <= 1 scale', (r) => r <= 1, '|noise| > 2.5 scales', (r) => r > 2.5],
    ['2 < |noise| < 6 scales', (r) => r > 2 && r < 6, '|noise| > 8 scales', (r) => r > 8],
  ],
  gaussian: [
    ['|noise| <= 1 scale', (r) => r <= 1, '|noise| > 2.5 scales', (r) => r > 2.5],
    ['1 < |noise| < 2.5 scales', (r) => r > 1 && r < 2.5, '|noise| > 3.5 scales', (r) => r > 3.5],
  ],
};

export async function run(ctx) {
  const rows = [];
  const mechanisms = [
    ['discrete Laplace (grid, default)', 'laplace', laplaceMechanism({ sensitivity: [1], epsilon: 1 })],
    ['discrete Laplace (grid, default), 2 coordinates', 'laplace', laplaceMechanism({ sensitivity: [1, 1], epsilon: 1 })],
    ['discrete Gaussian (grid, default)', 'gaussian', gaussianMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6 })],
    ['discrete Gaussian (grid, default), 2 coordinates', 'gaussian', gaussianMechanism({ sensitivity: [1, 1], epsilon: 1, delta: 1e-6 })],
  ];
  for (const [name, family, m] of mechanisms) {
    ctx.log(`  ${name} ...`);
    const query = m.scales.map(() => 0);
    const scale = m.scales[0];
    const times = new Float64Array(N);
    const sizes = new Float64Array(N);
    for (let warm = 0; warm < 20_000; warm++) m.release(query);
    for (let k = 0; k < N; k++) {
      const start = performance.now();
      const y = m.release(query)[0];
      times[k] = (performance.now() - start) * 1e3; // microseconds
      sizes[k] = Math.abs(y) / scale;
    }
    for (const [labelA, inA, labelB, inB] of COMPARISONS[family]) {
      const a = [];
      const b = [];
      for (let k = 0; k < N; k++) {
        if (inA(sizes[k])) a.push(times[k]);
        else if (inB(sizes[k])) b.push(times[k]);
      }
      const d = ks(a, b);
      const critical = 1.63 * Math.sqrt((a.length + b.length) / (a.length * b.length)); // alpha = 0.01
      rows.push([name, `${labelA} (${a.length})`, `${labelB} (${b.length})`, fmt(median(a)), fmt(median(b)), d.toFixed(4), critical.toFixed(4)]);
    }
  }
  return [
    {
      heading: 'Timing of a release against the size of its noise',
      text:
        `${N} releases of the value 0 (one coordinate, or two: the SIMD build draws a pair in its lanes) with a fresh CSPRNG draw each, timed one by one (performance.now, microseconds per release call, ` +
        "all validation included), grouped by the size of their (first coordinate's) noise: the bulk (small against large noise) and the far tail (moderate against " +
        "the largest noise, where a sampler's rare extra work would show). The Kolmogorov–Smirnov distance between two groups' times " +
        'is compared with what sampling alone gives at the 1% level: a distance near that level means the duration does not tell the groups apart.',
      columns: ['release', 'group A (releases)', 'group B (releases)', 'median µs (A)', 'median µs (B)', 'KS distance', 'sampling alone (1%)'],
      rows,
    },
  ];
}
