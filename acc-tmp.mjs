import { compose, gaussianPrivacy, subsample } from 'dpnoise';
import { performance } from 'node:perf_hooks';
const parts = Array.from({ length: 1000 }, (_, t) => ({
  privacy: subsample(gaussianPrivacy({ scales: 0.8 + (0.4 * t) / 999, sensitivity: [1] }), { rate: 0.01 }),
  times: 1,
}));
// warm
compose(parts.slice(0, 50)).epsilon(1e-5);
const t0 = performance.now();
const run = compose(parts);
const e = run.epsilon(1e-5);
console.log('eps', e, 'time', ((performance.now() - t0) / 1000).toFixed(3));
if (process.argv[2] === 'b') {
  const t1 = performance.now();
  console.log(run.bounds(1e-5), ((performance.now() - t1) / 1000).toFixed(3));
}
