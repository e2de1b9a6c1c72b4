// DP-SGD with per-layer clipping, trained in JavaScript: a small network on scikit-learn's 8x8
// digits (examples/data/, copied by scripts/digits.py) with @tensorflow/tfjs, for the three noise
// rules of journal section VI-C at the same privacy, Gaussian and Laplace: global clipping with
// the same noise everywhere (iid), per-layer clipping with noise proportional to the clipping norm
// (spr), and per-layer clipping with dpnoise's optimal per-layer noise. The accountant chooses the
// noise multiplier for the budget and reports each rule's epsilon from the scales it drew.
// Run: node examples/dpsgd-digits.mjs [--steps N]   (after `npm ci`; about a minute)
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import * as tf from '@tensorflow/tfjs';
import { compose, dpsgd, gaussianNoise, gaussianPrivacy, laplaceNoise, laplacePrivacy, subsample } from 'dpnoise';

/** The 1797 digits: 64 pixels scaled to [0, 1] and the label; the first 1437 train, the last 360 test. */
export function loadDigits() {
  const text = gunzipSync(readFileSync(new URL('data/digits.csv.gz', import.meta.url))).toString();
  const rows = text
    .trim()
    .split('\n')
    .map((line) => line.split(',').map(Number));
  const split = (part) => ({
    x: tf.tensor2d(part.map((r) => r.slice(0, 64).map((v) => v / 16))),
    y: tf
      .oneHot(
        part.map((r) => r[64]),
        10,
      )
      .toFloat(),
    n: part.length,
  });
  return { train: split(rows.slice(0, 1437)), test: split(rows.slice(1437)) };
}

/** The network 64 -> 32 (ReLU) -> 10, as four parameter tensors: the "layers" that are clipped. */
const SHAPES = [[64, 32], [32], [32, 10], [10]];
export const LAYER_SIZES = SHAPES.map((s) => s.reduce((a, b) => a * b, 1));

function initialParameters() {
  return [
    tf.randomNormal([64, 32], 0, Math.sqrt(2 / 64), 'float32', 1),
    tf.zeros([32]),
    tf.randomNormal([32, 10], 0, Math.sqrt(1 / 32), 'float32', 2),
    tf.zeros([10]),
  ].map((t) => tf.variable(t));
}

/**
 * Per-example gradients of the cross-entropy, one tensor per layer with the batch first. tfjs has
 * no per-example gradients (no vmap), so the backward pass of this two-layer network is written
 * out: one pass for the whole batch instead of one tf.grad call per example.
 */
function perExampleGradients([w1, b1, w2, b2], x, y) {
  const z1 = x.matMul(w1).add(b1);
  const h = z1.relu();
  const dLogits = h.matMul(w2).add(b2).softmax().sub(y); // [B, 10]
  const dZ1 = dLogits.matMul(w2.transpose()).mul(z1.step()); // [B, 32]
  const outer = (a, b) => a.expandDims(2).mul(b.expandDims(1));
  return [outer(x, dZ1), dZ1, outer(h, dLogits), dLogits];
}

/** Per-example norms of each layer's gradient ([B] per layer): l2 for Gaussian noise, l1 for Laplace. */
function layerNorms(grads, noise) {
  return grads.map((g) => {
    const axes = g.shape.slice(1).map((_, i) => i + 1);
    return noise === 'gaussian' ? g.square().sum(axes).sqrt() : g.abs().sum(axes);
  });
}

/** Float32 arithmetic can leave a clipped norm a few ulp above its bound: clip to slightly less. */
const CLIP_MARGIN = 1 - 1e-5;

/**
 * Clips each example's gradient: per layer to C_l (spr, optimal), or as a whole to ||C|| (global,
 * the l2 norm of the C_l for Gaussian noise, their sum for Laplace). Returns the clipped per-layer
 * sums over the batch and the largest clipped per-layer norm (which the test checks).
 */
function clippedSums(grads, clipNorms, rule, noise) {
  const norms = layerNorms(grads, noise);
  let factors;
  if (rule === 'global') {
    const total = noise === 'gaussian' ? tf.addN(norms.map((n) => n.square())).sqrt() : tf.addN(norms);
    const bound = noise === 'gaussian' ? Math.hypot(...clipNorms) : clipNorms.reduce((a, b) => a + b, 0);
    const f = tf.minimum(1, tf.div(bound * CLIP_MARGIN, total.add(1e-12)));
    factors = norms.map(() => f);
  } else {
    factors = norms.map((n, l) => tf.minimum(1, tf.div(clipNorms[l] * CLIP_MARGIN, n.add(1e-12))));
  }
  const clipped = grads.map((g, l) => g.mul(factors[l].reshape([-1, ...g.shape.slice(1).map(() => 1)])));
  const largest = layerNorms(clipped, noise).map((n) => (n.size ? n.max().dataSync()[0] : 0));
  return { sums: clipped.map((g) => g.sum(0)), largest };
}

/** The clipped gradients of a batch summed per layer (zeros for an empty batch); `largest` keeps the largest clipped norms. */
function batchSums(params, train, batch, clipNorms, rule, noise, largest) {
  if (batch.length === 0) return params.map((p) => tf.zerosLike(p));
  const index = tf.tensor1d(batch, 'int32');
  const grads = perExampleGradients(params, train.x.gather(index), train.y.gather(index));
  const clipped = clippedSums(grads, clipNorms, rule, noise);
  for (const [l, n] of clipped.largest.entries()) largest[l] = Math.max(largest[l], n);
  return clipped.sums;
}

/**
 * Poisson sampling: each training example in the batch with probability floor(rate 2^32) / 2^32,
 * at most the rate the accountant is given (words below rate 2^32, unrounded, could be one more),
 * from the CSPRNG.
 */
export function poissonBatch(n, rate) {
  const words = crypto.getRandomValues(new Uint32Array(n));
  const below = Math.floor(rate * 2 ** 32);
  const chosen = [];
  for (let i = 0; i < n; i++) if (words[i] < below) chosen.push(i);
  return chosen;
}

function accuracy(params, { x, y }) {
  return tf.tidy(() => {
    const [w1, b1, w2, b2] = params;
    const predicted = x.matMul(w1).add(b1).relu().matMul(w2).add(b2).argMax(1);
    return predicted.equal(y.argMax(1)).mean().dataSync()[0];
  });
}

/** A progress bar on stderr when it is a terminal. */
function progressBar(label) {
  const show = process.stderr.isTTY === true;
  return {
    update(done, total) {
      if (!show) return;
      const width = 30;
      const filled = Math.round((width * done) / total);
      process.stderr.write(`\r${label.padEnd(20)} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
    },
    end() {
      if (show) process.stderr.write('\r\x1b[2K');
    },
  };
}

/**
 * Trains with DP-SGD under one rule of `plan` (dpsgd's result). The noise of each step is drawn by
 * dpnoise with the rule's per-layer scales. Returns the test accuracy, the scales drawn, the
 * largest clipped per-layer norm of any example and the sample standard deviation of the noise
 * added to each layer.
 */
export function train({ data, plan, rule, clipNorms, rate, steps, learningRate = 2 }) {
  const params = initialParameters();
  const scales = plan[rule].scales;
  const draw = plan.noise === 'gaussian' ? gaussianNoise : laplaceNoise;
  const K = LAYER_SIZES.reduce((a, b) => a + b, 0);
  const expectedBatch = rate * data.train.n;
  const largest = LAYER_SIZES.map(() => 0);
  const squares = LAYER_SIZES.map(() => 0);
  const bar = progressBar(`${plan.noise} ${rule}`);
  for (let step = 0; step < steps; step++) {
    const batch = poissonBatch(data.train.n, rate);
    const noise = draw(K, { sizes: LAYER_SIZES, scales });
    for (let l = 0, i = 0; l < LAYER_SIZES.length; l++) for (const end = i + LAYER_SIZES[l]; i < end; i++) squares[l] += noise[i] ** 2;
    tf.tidy(() => {
      const sums = batchSums(params, data.train, batch, clipNorms, rule, plan.noise, largest);
      let offset = 0;
      params.forEach((p, l) => {
        // The noise is added to the clipped sum in float64 and only the noisy sum is rounded to
        // float32: noise rounded to float32 first, then added there, would leave a lattice in the
        // low bits that can tell neighbouring batches apart (as Mironov's do).
        const sum = sums[l].dataSync();
        const noisy = Float32Array.from(sum, (x, i) => x + noise[offset + i]);
        offset += LAYER_SIZES[l];
        p.assign(p.sub(tf.tensor(noisy, p.shape).mul(learningRate / expectedBatch)));
      });
    });
    bar.update(step + 1, steps);
  }
  bar.end();
  const noiseSd = squares.map((s, l) => Math.sqrt(s / (steps * LAYER_SIZES[l])));
  const result = { accuracy: accuracy(params, data.test), scales, largest, noiseSd };
  for (const p of params) p.dispose();
  return result;
}

/** The privacy of a run of `steps` steps with a rule's per-layer scales, from the scales alone. */
export function runPrivacy({ noise, scales, clipNorms, rate, steps }) {
  const step = (noise === 'gaussian' ? gaussianPrivacy : laplacePrivacy)({ scales, sensitivity: clipNorms });
  return compose([{ privacy: subsample(step, { rate }), times: steps }]);
}

export const SETTINGS = { epsilon: 3, delta: 1e-5, rate: 64 / 1437, clipNorms: [0.5, 0.5, 0.5, 0.5] };

async function main() {
  await tf.setBackend('cpu');
  const at = process.argv.indexOf('--steps');
  const steps = at > 0 ? Number(process.argv[at + 1]) : 400;
  const { epsilon, delta, rate, clipNorms } = SETTINGS;
  const data = loadDigits();
  console.log(`DP-SGD on the 8x8 digits (1437 train, 360 test): network 64-32-10, ${LAYER_SIZES.reduce((a, b) => a + b)} parameters in 4 layers`);
  console.log(
    `Poisson batches at rate ${rate.toFixed(4)} (64 expected), ${steps} steps, per-layer clipping norms ${clipNorms.join(', ')}; budget epsilon ${epsilon} at delta ${delta}`,
  );
  console.log('\nnoise     rule      multiplier z   epsilon (accountant)   test accuracy');
  for (const noise of ['gaussian', 'laplace']) {
    const plan = dpsgd({ layerSizes: LAYER_SIZES, clipNorms, batch: { rate }, steps, epsilon, delta, noise });
    for (const rule of ['global', 'spr', 'optimal']) {
      const result = train({ data, plan, rule, clipNorms, rate, steps });
      const spent = runPrivacy({ noise, scales: result.scales, clipNorms, rate, steps }).epsilon(delta);
      console.log(
        `${noise.padEnd(10)}${rule.padEnd(10)}${plan.noiseMultiplier.toFixed(4).padStart(12)}${spent.toFixed(4).padStart(23)}${(100 * result.accuracy).toFixed(1).padStart(15)}%`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
