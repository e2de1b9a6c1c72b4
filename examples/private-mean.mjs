// A private mean of bounded vectors: release the sums and the count with correlated Gaussian
// noise (add/remove neighbours), then divide the noisy sums by the noisy count.
// Run: node examples/private-mean.mjs   (after `npm ci`)
import { addGaussianNoise, correlatedSum, createRng, gaussianMu } from 'dpnoise';

const d = 1000; // dimension of each record
const n = 20_000; // records
const C = 1; // every entry lies in [0, C]
const epsilon = 1;
const delta = 1e-6;

// Synthetic data: record i has entries in [0, 1] around a smooth true mean.
const data = createRng({ seed: 'private-mean-data' });
const trueMean = Float64Array.from({ length: d }, (_, j) => 0.5 + 0.3 * Math.sin(j / 50));
const sums = new Float64Array(d);
const jitter = new Float64Array(d);
for (let i = 0; i < n; i++) {
  jitter.fill(0);
  addGaussianNoise(jitter, 0.1, { rng: data });
  for (let j = 0; j < d; j++) sums[j] += Math.min(C, Math.max(0, trueMean[j] + jitter[j]));
}
const exactMean = sums.map((s) => s / n);

const rmse = (a, b) => Math.sqrt(a.reduce((s, x, j) => s + (x - b[j]) ** 2, 0) / a.length);

// Correlated noise: one draw shared by every sum, and the count released for free.
const mechanism = correlatedSum({ dimension: d, epsilon, delta, bound: C });
const { sums: noisySums, count: noisyCount } = mechanism.release(sums, n);
const correlatedMean = noisySums.map((s) => s / noisyCount);

// The standard alternative: iid noise on the sums (l2 sensitivity C sqrt(d)), and the count
// from a second mechanism, splitting the privacy budget: each half gets mu0 / sqrt(2).
const mu = gaussianMu(epsilon, delta) / Math.SQRT2;
const standardSums = addGaussianNoise(Float64Array.from(sums), (C * Math.sqrt(d)) / mu);
const standardCount = n + addGaussianNoise(new Float64Array(1), 1 / mu)[0];
const standardMean = standardSums.map((s) => s / standardCount);

console.log(`Private mean of ${n} records in [0, ${C}]^${d}, (epsilon, delta) = (${epsilon}, ${delta})\n`);
console.log('mechanism                 sum noise sd   count noise sd   RMSE of the mean');
console.log(
  `correlated (dpnoise)      ${mechanism.sumScale.toFixed(3).padStart(12)}   ${mechanism.countScale.toFixed(3).padStart(14)}   ${rmse(correlatedMean, exactMean).toExponential(3).padStart(16)}`,
);
console.log(
  `standard, budget split    ${((C * Math.sqrt(d)) / mu).toFixed(3).padStart(12)}   ${(1 / mu).toFixed(3).padStart(14)}   ${rmse(standardMean, exactMean).toExponential(3).padStart(16)}`,
);
console.log(`\nGain in MSE of the sums over the standard mechanism at the full budget: ${mechanism.gain.toFixed(3)}`);
