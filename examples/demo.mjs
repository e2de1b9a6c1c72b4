// The main demo: calibrate noise for a few sensitivity profiles and compare the allocations.
// Run with `npm run demo` (it builds first) or `node examples/demo.mjs` after a build.
import { calibrateGaussian, calibrateLaplace, gaussianMu } from 'dpnoise';

const epsilon = 0.5;
const delta = 1e-6;
const K = 20;

/** Profiles of the conference paper (K = 20, scaled to l2 norm 1), and a one-hot profile. */
const profiles = {
  'uniform      1': () => 1,
  'linear       i': (i) => i,
  'quadratic  i^2': (i) => i * i,
  'exponential e^i': (i) => Math.exp(i),
  'one-hot': (i) => (i === 1 ? 1 : 0),
};

function profile(shape) {
  const lambda = Float64Array.from({ length: K }, (_, k) => shape(k + 1));
  const norm = Math.hypot(...lambda);
  return lambda.map((x) => x / norm);
}

const fmt = (x) => x.toPrecision(5).padStart(11);
const db = (gain) =>
  `${(10 * Math.log10(gain))
    .toFixed(2)
    .replace(/^-0\.00$/, '0.00')
    .padStart(6)} dB`;

console.log(`dpnoise demo: K = ${K} coordinates, sensitivity profiles with ||lambda||_2 = 1`);
console.log(`Gaussian noise for (epsilon, delta) = (${epsilon}, ${delta}): mu0 = ${gaussianMu(epsilon, delta).toPrecision(12)}`);
console.log(`Laplace noise for pure epsilon = ${epsilon}\n`);
console.log(`${'profile'.padEnd(16)} ${'noise'.padEnd(9)} ${'iid MSE'.padStart(11)} ${'spr MSE'.padStart(11)} ${'optimal MSE'.padStart(11)}   gain over iid`);
for (const [name, shape] of Object.entries(profiles)) {
  const sensitivity = profile(shape);
  for (const [noise, calibrate, extra] of [
    ['Gaussian', calibrateGaussian, { delta }],
    ['Laplace', calibrateLaplace, {}],
  ]) {
    const [iid, spr, optimal] = ['iid', 'spr', 'optimal'].map((allocation) => calibrate({ sensitivity, epsilon, allocation, ...extra }));
    console.log(
      `${name.padEnd(16)} ${noise.padEnd(9)} ${fmt(iid.mse)} ${fmt(spr.mse)} ${fmt(optimal.mse)}   ${optimal.gain.toFixed(4).padStart(8)} ${db(optimal.gain)}`,
    );
  }
}

const sensitivity = profile(profiles['exponential e^i']);
const g = calibrateGaussian({ sensitivity, epsilon, delta });
console.log('\nOptimal Gaussian standard deviations for the exponential profile (coordinates 1, 10, 20):');
console.log(`  ${[0, 9, 19].map((i) => g.scales[i].toPrecision(6)).join(', ')}`);
