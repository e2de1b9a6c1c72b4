// Benchmark group "Timing": how much the time of a one-coordinate release says about its noise.
// An observer who sees a release y = x + noise and its duration learns about x only through what
// the duration says about the noise (Jin et al. 2022 recovered noise from rejection samplers'
// timing). Releases of x = 0 are timed one by one and grouped by the size of their noise; if the
// groups' time distributions are as close as sampling alone makes them, time does not separate
// neighbouring inputs.
import { gaussianMechanism, laplaceMechanism } from 'dpnoise';
import { performance } from 'node:perf_hooks';
import { fmt } from './format.mjs';

export const title = 'Timing';

const N = 200_000;

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

export async function run(ctx) {
  const rows = [];
  const mechanisms = [
    ['discrete Laplace (grid, default)', laplaceMechanism({ sensitivity: [1], epsilon: 1 })],
    ['discrete Laplace, fixedWork', laplaceMechanism({ sensitivity: [1], epsilon: 1, fixedWork: true })],
    ['discrete Gaussian (grid, default)', gaussianMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6 })],
    ['discrete Gaussian, fixedWork', gaussianMechanism({ sensitivity: [1], epsilon: 1, delta: 1e-6, fixedWork: true })],
  ];
  for (const [name, m] of mechanisms) {
    ctx.log(`  ${name} ...`);
    const query = [0];
    const scale = m.scales[0];
    const small = [];
    const large = [];
    for (let warm = 0; warm < 20_000; warm++) m.release(query);
    for (let k = 0; k < N; k++) {
      const start = performance.now();
      const y = m.release(query)[0];
      const elapsed = (performance.now() - start) * 1e3; // microseconds
      if (Math.abs(y) <= scale) small.push(elapsed);
      else if (Math.abs(y) > 2.5 * scale) large.push(elapsed);
    }
    const d = ks(small, large);
    const critical = 1.63 * Math.sqrt((small.length + large.length) / (small.length * large.length)); // alpha = 0.01
    rows.push([name, String(small.length), String(large.length), fmt(median(small)), fmt(median(large)), d.toFixed(4), critical.toFixed(4)]);
  }
  return [
    {
      heading: 'Timing of a one-coordinate release against the size of its noise',
      text:
        `${N} releases of the value 0 with a fresh CSPRNG draw each, timed one by one (performance.now, microseconds per release call, ` +
        "all validation included), grouped by |noise| <= 1 scale and |noise| > 2.5 scales. The Kolmogorov–Smirnov distance between the two groups' times " +
        'is compared with what sampling alone gives at the 1% level: a distance near that level means the duration does not tell large noise from small.',
      columns: [
        'release',
        'releases with |noise| <= 1 scale',
        'releases with |noise| > 2.5 scales',
        'median µs (small)',
        'median µs (large)',
        'KS distance',
        'sampling alone (1%)',
      ],
      rows,
    },
  ];
}
