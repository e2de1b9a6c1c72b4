// Benchmark group "Private training": one step of dpnoise/tfjs's privateTraining (a Poisson batch
// of 256 expected digits, per-example gradients from the layers' inputs and output gradients,
// per-layer clipping, the float64 sum and grid noise) against one ordinary step of the same model
// on a batch of 256 (tfjs's own gradient of the mean loss), and against the loop over examples
// (tf.variableGrads per example, clipped and summed), on tfjs's cpu and wasm backends, for an MLP
// and a small CNN.
import '@tensorflow/tfjs-backend-wasm';
import * as tf from '@tensorflow/tfjs';
import { privateTraining } from 'dpnoise/tfjs';
import { loadDigits } from '../examples/dpsgd-digits.mjs';
import { fmt, NA, times } from './format.mjs';

export const title = 'Private training';

const BATCH = 256;
const CLIP = [0.5, 0.5];
/** Private runs per backend and network, each paired with as many ordinary steps. */
const RUNS = 5;

/** The networks timed: each builds its model and shapes the digits' 64 pixels as its input. */
const NETWORKS = [
  {
    heading: 'One step of the digits MLP 64-32-10 (2410 parameters), 256 examples: milliseconds',
    build: () =>
      tf.sequential({
        layers: [tf.layers.dense({ inputShape: [64], units: 32, activation: 'relu' }), tf.layers.dense({ units: 10, activation: 'softmax' })],
      }),
    input: (x) => x,
    // Private steps timed in each run, per backend: about half a second's worth.
    steps: { cpu: 60, wasm: 120 },
    before:
      'Before the norms and sums moved to float64 (float32 chunk sums of 4 examples in tfjs, 340 slots, tf.gather), in three runs of this bench alternating with three of the change on 2026-11-29 (load average 3 to 9 on the shared 2-core machine): private ÷ ordinary 3.00×, 2.89×, 2.99× on cpu and 6.06×, 5.23×, 4.96× on wasm, against 1.36×, 1.27×, 1.33× and 2.01×, 1.96×, 2.03× after; single pairs of runs after ranged from 1.08× to 2.16× on cpu and 1.32× to 3.83× on wasm. Measured with the private runs apart from the ordinary ones, as before this bench paired them: 3.49× and 5.03× (RESULTS of 01:45), 6.0× and 7.4× when issue 43 measured it.',
  },
  {
    heading: 'One step of the digits CNN conv 3x3x8, max-pool 2, dense 10 (810 parameters), 256 examples: milliseconds',
    build: () =>
      tf.sequential({
        layers: [
          tf.layers.conv2d({ inputShape: [8, 8, 1], filters: 8, kernelSize: 3, activation: 'relu' }),
          tf.layers.maxPooling2d({ poolSize: 2 }),
          tf.layers.flatten(),
          tf.layers.dense({ units: 10, activation: 'softmax' }),
        ],
      }),
    input: (x) => x.reshape([-1, 8, 8, 1]),
    steps: { cpu: 4, wasm: 30 },
    before:
      "Before the norms and sums moved to float64, in the same alternating runs: private ÷ ordinary 1.17×, 1.17×, 0.88× on cpu against 0.77×, 0.70×, 0.80× after, and a private step of 30, 17, 17 ms on wasm against 23, 13, 14 ms; tfjs's own gradient of a convolution on the cpu backend is slower than the product of the patches.",
  },
];

/** Seconds per private step of one run of `steps` steps (planned before the clock starts). */
async function privateRun(network, data, steps) {
  const model = network.build();
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
  model.dispose();
  return (performance.now() - start) / 1000 / steps;
}

/** Seconds per step of `steps` calls of `step`. */
function ordinaryRun(step, steps) {
  const start = performance.now();
  for (let i = 0; i < steps; i++) step();
  return (performance.now() - start) / 1000 / steps;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The private and the ordinary step timed in turn, `runs` times: each private run of `steps`
 * steps followed at once by `steps` ordinary steps, so that each pair sees the same load of the
 * shared machine. Their medians, and each pair's ratio. Without `ordinary` (tfjs cannot train the
 * model on this backend), the private runs only.
 */
async function privateAndOrdinary(network, data, ordinary, steps, runs) {
  if (ordinary) for (let i = 0; i < 3; i++) ordinary(); // warm-up
  const pairs = [];
  for (let r = 0; r < runs; r++) {
    const secure = await privateRun(network, data, steps);
    pairs.push({ secure, ordinary: ordinary ? ordinaryRun(ordinary, steps) : undefined });
  }
  return {
    secure: median(pairs.map((p) => p.secure)),
    ordinary: ordinary ? median(pairs.map((p) => p.ordinary)) : undefined,
    ratios: ordinary ? pairs.map((p) => p.secure / p.ordinary) : [],
  };
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

/**
 * Whether tfjs can take the model's gradient on the current backend: the wasm backend has no
 * kernel for a convolution's weight gradient (Conv2DBackpropFilter), so no ordinary step there.
 */
function trainsOn(model, x, y) {
  try {
    tf.tidy(() => tf.variableGrads(() => tf.metrics.categoricalCrossentropy(y.slice(0, 1), model.apply(x.slice(0, 1))).sum()));
    return true;
  } catch (error) {
    if (String(error).includes('not registered for backend')) return false;
    throw error;
  }
}

/** One table's rows: each backend's ordinary, private and loop steps of the network. */
async function timeNetwork(ctx, network, digits) {
  const rows = [];
  for (const backend of ['cpu', 'wasm']) {
    await tf.setBackend(backend);
    ctx.log(`  ${backend} ...`);
    const model = network.build();
    const optimizer = tf.train.sgd(0.5);
    const x = digits.x.slice(0, BATCH);
    const y = digits.y.slice(0, BATCH);
    const trains = trainsOn(model, x, y);
    const { secure, ordinary, ratios } = await privateAndOrdinary(
      network,
      digits,
      trains && ordinaryStep(model, optimizer, x, y),
      network.steps[backend],
      RUNS,
    );
    ctx.check(secure > 0, 'a step takes time');
    if (!trains) {
      rows.push([backend, NA, fmt(secure * 1e3), NA, NA, NA, NA]);
    } else {
      const loop = ctx.measure(loopStep(model, optimizer, x, y), { seconds: 2, batches: 3 });
      const range = `${fmt(Math.min(...ratios))} to ${fmt(Math.max(...ratios))}`;
      rows.push([backend, fmt(ordinary * 1e3), fmt(secure * 1e3), times(median(ratios), 1), range, fmt(loop.perUnit * 1e3), times(loop.perUnit, secure)]);
    }
    model.dispose();
  }
  return rows;
}

const TEXT =
  "The private step draws a Poisson batch (256 expected), runs one forward and one backward pass with a probe at each layer, reads the per-example tensors back (a dense layer's inputs and output gradients, a convolution's per-example kernel gradients), computes the norms, the per-layer clipping factors and the clipped sum from them in float64, and adds grid-mode Gaussian noise; " +
  "its batch is laid out in fixed-shape micro-batches of 289 slots (the expected batch and two standard deviations), padded. The ordinary step is tfjs's own gradient of the mean loss of 256 examples, applied by SGD. Each of 5 runs times one privateTraining run of 60 private steps (MLP on cpu; 120 on wasm; CNN 4 and 30), its whole fit, then as many ordinary steps at once, so that both see the same load of the shared machine: the medians of the runs, the median of their ratios and its range. The loop runs tf.variableGrads once per example. " +
  "n/a: tfjs's wasm backend has no kernel for a convolution's weight gradient (Conv2DBackpropFilter), so tfjs cannot train the CNN there at all; the private step cuts the patches and needs none.";

export async function run(ctx) {
  tf.enableProdMode();
  await tf.setBackend('cpu'); // the data's first backend; tfjs moves it to the other on use
  const { train } = loadDigits();
  const tables = [];
  for (const network of NETWORKS) {
    ctx.log(` ${network.heading.split(' (')[0]}`);
    const digits = { x: network.input(train.x), y: train.y };
    const rows = await timeNetwork(ctx, network, digits);
    tables.push({
      heading: network.heading,
      text: `${TEXT} ${network.before}`,
      columns: ['backend', 'ordinary step ms', 'private step ms', 'private ÷ ordinary', `each of ${RUNS} runs`, 'loop over examples ms', 'loop ÷ private'],
      rows,
    });
  }
  return tables;
}
