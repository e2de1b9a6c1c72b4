// Benchmark group "Private training": one step of dpnoise/tfjs's privateTraining (a Poisson batch
// of 256 expected digits, per-example gradients from the layers' inputs and output gradients,
// per-layer clipping, the float64 sum and grid noise) against one ordinary step of the same model
// on a batch of 256 (tfjs's own gradient of the mean loss), and against the loop over examples
// (tf.variableGrads per example, clipped and summed), on tfjs's cpu and wasm backends.
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import { privateTraining } from 'dpnoise/tfjs';
import { loadDigits } from '../examples/dpsgd-digits.mjs';
import { fmt, times } from './format.mjs';

export const title = 'Private training';

const BATCH = 256;
const CLIP = [0.5, 0.5];

function network() {
  return tf.sequential({
    layers: [tf.layers.dense({ inputShape: [64], units: 32, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
  });
}

/** Seconds per private step: `steps` steps of one run (planned before the clock starts), the median of `runs` runs. */
async function privateStep(data, steps, runs) {
  const seconds = [];
  for (let r = 0; r < runs; r++) {
    const model = network();
    const run = privateTraining(model, {
      loss: 'categoricalCrossentropy',
      optimizer: tf.train.sgd(0.5),
      epsilon: 3,
      delta: 1e-5,
      steps,
      sampleRate: BATCH / 1437,
      clipNorms: CLIP,
    });
    const start = performance.now();
    await run.fit(data.x, data.y, { progress: false });
    seconds.push((performance.now() - start) / 1000 / steps);
    model.dispose();
  }
  return seconds.sort((a, b) => a - b)[Math.floor(runs / 2)];
}

/** One ordinary step: the mean loss's gradient of a batch of 256, applied by the optimizer. */
function ordinaryStep(model, optimizer, x, y) {
  return () => optimizer.minimize(() => tf.metrics.categoricalCrossentropy(y, model.apply(x)).mean(), false);
}

/** One step by the loop over examples: each example's gradients, clipped per layer, summed, applied. */
function loopStep(model, optimizer, x, y) {
  const variables = model.trainableWeights.map((w) => w.read());
  return () =>
    tf.tidy(() => {
      const sums = variables.map((v) => tf.zerosLike(v));
      for (let b = 0; b < BATCH; b++) {
        const { grads } = tf.variableGrads(() => tf.metrics.categoricalCrossentropy(y.slice(b, 1), model.apply(x.slice(b, 1))).sum(), variables);
        const g = variables.map((v) => grads[v.name]);
        for (let l = 0; l < 2; l++) {
          const norm = tf.addN([g[2 * l].square().sum(), g[2 * l + 1].square().sum()]).sqrt();
          const factor = tf.minimum(1, tf.div(CLIP[l], norm));
          sums[2 * l] = sums[2 * l].add(g[2 * l].mul(factor));
          sums[2 * l + 1] = sums[2 * l + 1].add(g[2 * l + 1].mul(factor));
        }
      }
      optimizer.applyGradients(variables.map((v, k) => ({ name: v.name, tensor: sums[k].div(BATCH) })));
    });
}

export async function run(ctx) {
  tf.enableProdMode();
  await tf.setBackend('cpu'); // the data's first backend; tfjs moves it to the other on use
  const { train } = loadDigits();
  const rows = [];
  for (const backend of ['cpu', 'wasm']) {
    await tf.setBackend(backend);
    ctx.log(`  ${backend} ...`);
    const model = network();
    const optimizer = tf.train.sgd(0.5);
    const x = train.x.slice(0, BATCH);
    const y = train.y.slice(0, BATCH);
    const [ordinary, loop] = ctx.measureEach([ordinaryStep(model, optimizer, x, y), loopStep(model, optimizer, x, y)], { seconds: 2, batches: 3 });
    const secure = await privateStep(train, backend === 'cpu' ? 20 : 60, 3);
    ctx.check(secure > 0 && ordinary.perUnit > 0, 'a step takes time');
    rows.push([backend, fmt(ordinary.perUnit * 1e3), fmt(secure * 1e3), times(secure, ordinary.perUnit), fmt(loop.perUnit * 1e3), times(loop.perUnit, secure)]);
    model.dispose();
  }
  return [
    {
      heading: 'One step of the digits network 64-32-10 (2410 parameters), 256 examples: milliseconds',
      text:
        'The private step draws a Poisson batch (256 expected), runs one forward and one backward pass with a probe at each layer, clips each example per layer from the norms of its factors, sums the clipped gradients in chunks of 4 (float32) and in float64, and adds grid-mode Gaussian noise; ' +
        'its batch is laid out in fixed-shape micro-batches, padded (about 340 slots here). The loop runs tf.variableGrads once per example. ' +
        "Before the chunk sums stopped broadcasting (tfjs's cpu backend broadcasts an elementwise operation index by index): private ÷ ordinary 5.3×, 7.0×, 5.4× on cpu and 6.7×, 4.1×, 6.6× on wasm, in three runs alternating on 2026-11-29 with runs of the change (3.3×, 2.9×, 3.3× on cpu; 5.0×, 6.8×, 4.7× on wasm) on the shared 2-core machine; 6.0× and 7.4× when issue 43 measured it.",
      columns: ['backend', 'ordinary step ms', 'private step ms', 'private ÷ ordinary', 'loop over examples ms', 'loop ÷ private'],
      rows,
    },
  ];
}
