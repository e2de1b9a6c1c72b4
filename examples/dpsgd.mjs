// DP-SGD with per-layer clipping: the noise of one step for a ResNet-20-like network, with the
// optimal per-layer scales against the per-layer proportional rule and global clipping.
// Run: node examples/dpsgd.mjs   (after `npm ci`)
import { compose, dpsgd, gaussianNoise, gaussianPrivacy, perLayerNoise, subsample } from 'dpnoise';

// Parameters per layer of a ResNet-20 for CIFAR-10 (conv weights, then the classifier).
const layerSizes = [432, ...Array(6).fill(2304), 4608, ...Array(5).fill(9216), 18432, ...Array(5).fill(36864), 650];
const L = layerSizes.length;
const K = layerSizes.reduce((a, b) => a + b, 0);
const noiseMultiplier = 1.1; // sigma / clipping norm of one step (mu = 1 / z); its cost over a run is accounted below

function report(title, clipNorms) {
  const { optimal, spr, global } = perLayerNoise({ layerSizes, clipNorms, noiseMultiplier });
  console.log(`\n${title}`);
  console.log('rule                              total noise (sum n_l sigma_l^2)   relative to optimal');
  for (const [name, c] of [
    ['global clipping (iid)', global],
    ['per-layer, sigma_l ~ C_l (spr)', spr],
    ['per-layer, optimal (dpnoise)', optimal],
  ]) {
    console.log(`${name.padEnd(34)}${c.mse.toExponential(4).padStart(30)}${(c.mse / optimal.mse).toFixed(3).padStart(22)}`);
  }
  return optimal;
}

console.log(`One DP-SGD step: ${L} layers, ${K} parameters, noise multiplier z = ${noiseMultiplier}`);
// Flat per-layer clipping: equal C_l with ||C||_2 = 1 (the journal's setting).
const flat = Array(L).fill(1 / Math.sqrt(L));
const optimal = report('Flat per-layer clipping, ||C||_2 = 1', flat);
// Clipping proportional to sqrt(layer size): larger layers get larger norms.
const raw = layerSizes.map(Math.sqrt);
const norm = Math.hypot(...raw);
report(
  'Clipping C_l ~ sqrt(n_l), ||C||_2 = 1',
  raw.map((c) => c / norm),
);

// The noise itself, expanded from one scale per layer without a K-long scale array.
const noise = gaussianNoise(K, { sizes: layerSizes, scales: optimal.scales });
const first = noise.subarray(0, layerSizes[0]);
const sd = Math.sqrt(first.reduce((s, x) => s + x * x, 0) / first.length);
console.log(`\nDrawn noise, first layer: sample sd ${sd.toFixed(4)} (scale ${optimal.scales[0].toFixed(4)})`);

// What training spends: each step is the per-layer Gaussian release (each layer one coordinate
// with its clipping norm as l2 sensitivity) on a Poisson batch of expected size 256 from the
// 50000 CIFAR-10 images, for 50 epochs; the accountant composes the steps.
const step = gaussianPrivacy({ scales: optimal.scales, sensitivity: flat });
const rate = 256 / 50000;
const steps = Math.round(50 / rate);
const run = compose([{ privacy: subsample(step, { rate }), times: steps }]);
const { lower, upper } = run.bounds(1e-5);
console.log(`\nOne step: mu = ${step.mu.toFixed(6)} (1 / z = ${(1 / noiseMultiplier).toFixed(6)})`);
console.log(`${steps} steps at rate ${rate}: epsilon ${upper.toFixed(4)} at delta 1e-5 (certified range [${lower.toFixed(4)}, ${upper.toFixed(4)}])`);

// Or the other way round: the smallest noise multiplier for a budget, and the scales at it.
const plan = dpsgd({ layerSizes, clipNorms: flat, batch: { rate }, steps, epsilon: 2, delta: 1e-5 });
console.log(`For epsilon 2 at delta 1e-5 over the same run: z = ${plan.noiseMultiplier.toFixed(4)}, epsilon spent ${plan.privacy.epsilon(1e-5).toFixed(4)}`);
