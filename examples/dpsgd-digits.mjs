// DP-SGD in JavaScript with dpnoise/tfjs: a 64-32-10 network on scikit-learn's 8x8 digits
// (examples/data/, copied by scripts/digits.py) trained by privateTraining, for the three noise
// rules of journal section VI-C at the same privacy, Gaussian and Laplace: global clipping with
// the same noise everywhere (iid), per-layer clipping with noise proportional to the clipping norm
// (spr), and per-layer clipping with dpnoise's optimal per-layer noise. The accountant chooses the
// noise for the budget; each run reports the epsilon of the steps it took.
// Run: node examples/dpsgd-digits.mjs [--epochs N] [--backend cpu|wasm]   (after `npm ci`; about 7 s)
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import * as tf from '@tensorflow/tfjs';
import { privateTraining } from 'dpnoise/tfjs';

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
  });
  return { train: split(rows.slice(0, 1437)), test: split(rows.slice(1437)) };
}

/** The budget, the Poisson rate (256 expected examples a step) and each layer's clipping norm. */
export const SETTINGS = { epsilon: 3, delta: 1e-5, sampleRate: 256 / 1437, clipNorms: [0.5, 0.5] };

/** A rule: global clipping to the norm of the per-layer norms (l2, or l1 for Laplace noise) with iid noise, or per-layer clipping with spr or optimal noise. */
function ruleOptions(rule, noise) {
  const { clipNorms } = SETTINGS;
  if (rule !== 'global') return { clipping: 'per-layer', clipNorms, allocation: rule };
  return { clipping: 'global', clipNorm: noise === 'gaussian' ? Math.hypot(...clipNorms) : clipNorms.reduce((a, b) => a + b, 0) };
}

/** Trains a new network under one rule and noise; returns the run and its test accuracy. */
export async function trainDigits({ data, rule, noise, epochs }) {
  const model = tf.sequential({
    layers: [tf.layers.dense({ inputShape: [64], units: 32, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
  });
  const { epsilon, delta, sampleRate } = SETTINGS;
  const run = privateTraining(model, {
    loss: 'categoricalCrossentropy',
    optimizer: tf.train.sgd(0.5),
    epsilon,
    delta,
    epochs,
    sampleRate,
    noise,
    ...ruleOptions(rule, noise),
  });
  const { history } = await run.fit(data.train.x, data.train.y, { validationData: [data.test.x, data.test.y] });
  model.dispose();
  return { run, accuracy: history.at(-1).valAccuracy };
}

async function main() {
  const option = (name, fallback) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : fallback;
  };
  tf.enableProdMode(); // no debug checks, no banner about tfjs-node
  const backend = option('--backend', 'cpu');
  if (backend === 'wasm') await import('@tensorflow/tfjs-backend-wasm'); // npm install @tensorflow/tfjs-backend-wasm
  await tf.setBackend(backend);
  const epochs = Number(option('--epochs', 20));
  const { epsilon, delta, sampleRate, clipNorms } = SETTINGS;
  const data = loadDigits();
  console.log(`DP-SGD on the 8x8 digits (1437 train, 360 test) with dpnoise/tfjs, ${tf.getBackend()} backend: network 64-32-10, 2410 parameters in 2 layers`);
  console.log(
    `Poisson batches at rate ${sampleRate.toFixed(4)} (256 expected), ${epochs} epochs, per-layer clipping norms ${clipNorms.join(', ')}; budget epsilon ${epsilon} at delta ${delta}`,
  );
  console.log('\nnoise     rule      multiplier z   epsilon (accountant)   test accuracy   seconds');
  for (const noise of ['gaussian', 'laplace']) {
    for (const rule of ['global', 'spr', 'optimal']) {
      const start = performance.now();
      const { run, accuracy } = await trainDigits({ data, rule, noise, epochs });
      const seconds = (performance.now() - start) / 1000;
      console.log(
        `${noise.padEnd(10)}${rule.padEnd(10)}${run.noiseMultiplier.toFixed(4).padStart(12)}${run.privacy.epsilon(delta).toFixed(4).padStart(23)}${(100 * accuracy).toFixed(1).padStart(15)}%${seconds.toFixed(1).padStart(10)}`,
      );
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) main();
