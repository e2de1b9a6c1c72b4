// Per-example gradients without a loop over examples (src/tfjs/dense.ts, conv2d.ts, embedding.ts,
// layer-normalization.ts, pieces.ts) equal tf.variableGrads run on each example alone, to float32
// precision, on both backends; and each example's value depends on that example alone, wherever
// it sits and whatever is beside it (assumption A of docs/training.md, "Rounding").
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { conv2dRunner } from '../../src/tfjs/conv2d.js';
import { readLoss } from '../../src/tfjs/losses.js';
import { BACKENDS, perExampleGradients, referenceGradients, useBackend } from './helpers.js';

/** Models covering every supported layer and its options, each with inputs and targets. */
function cases(): Array<{ name: string; model: tf.LayersModel; x: tf.Tensor; y: tf.Tensor; loss: string }> {
  const normal = (shape: number[], seed: number) => tf.randomNormal(shape, 0, 1, 'float32', seed);
  const classes = (n: number, k: number, seed: number) => tf.oneHot(tf.randomUniform([n], 0, k, 'int32', seed), k).toFloat();
  return [
    {
      name: 'dense with and without bias, relu, tanh and softmax',
      model: tf.sequential({
        layers: [
          tf.layers.dense({ inputShape: [5], units: 4, activation: 'relu' }),
          tf.layers.dense({ units: 3, activation: 'tanh', useBias: false }),
          tf.layers.dense({ units: 3, activation: 'softmax' }),
        ],
      }),
      x: normal([7, 5], 1),
      y: classes(7, 3, 2),
      loss: 'categoricalCrossentropy',
    },
    {
      name: 'dense on sequences, layer normalization, pooling',
      model: tf.sequential({
        layers: [
          tf.layers.dense({ inputShape: [6, 3], units: 4, activation: 'elu' }),
          tf.layers.layerNormalization(),
          tf.layers.globalAveragePooling1d(),
          tf.layers.dense({ units: 2 }),
        ],
      }),
      x: normal([5, 6, 3], 3),
      y: normal([5, 2], 4),
      loss: 'meanSquaredError',
    },
    {
      name: 'conv2d: same and valid padding, strides, no bias',
      model: tf.sequential({
        layers: [
          tf.layers.conv2d({ inputShape: [7, 6, 2], filters: 3, kernelSize: 3, padding: 'same', strides: 2, activation: 'relu' }),
          tf.layers.conv2d({ filters: 2, kernelSize: [2, 1], strides: [1, 2], useBias: false }),
          tf.layers.flatten(),
          tf.layers.dense({ units: 3, activation: 'softmax' }),
        ],
      }),
      x: normal([4, 7, 6, 2], 5),
      y: classes(4, 3, 6),
      loss: 'categoricalCrossentropy',
    },
    {
      name: 'embedding with repeated ids, layer normalization',
      model: tf.sequential({
        layers: [
          tf.layers.embedding({ inputDim: 5, outputDim: 3, inputLength: 6 }),
          tf.layers.layerNormalization(),
          tf.layers.flatten(),
          tf.layers.dense({ units: 1, activation: 'sigmoid' }),
        ],
      }),
      x: tf.tensor2d([0, 1, 1, 4, 1, 0, 2, 2, 2, 2, 2, 2, 3, 4, 0, 1, 2, 3], [3, 6]),
      y: tf.tensor2d([1, 0, 1], [3, 1]),
      loss: 'binaryCrossentropy',
    },
  ];
}

describe.each(BACKENDS)('per-example gradients on the %s backend', (backend) => {
  useBackend(backend);

  it.each([0, 1, 2, 3])('equal the loop over examples with tf.variableGrads (case %i)', async (k) => {
    const { model, x, y, loss } = cases()[k]!;
    const ours = perExampleGradients(model, readLoss(loss), x, y);
    // The reference on the cpu backend: the wasm backend has no gradient for tf.gather (embeddings).
    await tf.setBackend('cpu');
    const reference = referenceGradients(model, readLoss(loss), x, y);
    await tf.setBackend(backend);
    expect(ours.map((t) => t.shape)).toEqual(reference.map((t) => t.shape));
    ours.forEach((t, w) => {
      const a = t.dataSync() as Float32Array;
      const b = reference[w]!.dataSync() as Float32Array;
      // Float32 precision: both sides round each product and sum in float32, in other orders; the
      // largest difference measured is 9.7e-8 of the weight's largest entry (1.6 float32 ulps), 2^-20 is 10 times that.
      const scale = b.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
      const worst = a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i]!)), 0);
      expect(worst).toBeLessThanOrEqual(2 ** -20 * scale);
    });
  });

  it('compute dilated convolutions as tfjs does (whose gradients tfjs has not, for a reference loop)', () => {
    const layer = tf.layers.conv2d({ inputShape: [7, 6, 2], filters: 2, kernelSize: [3, 2], dilationRate: 2, padding: 'same' });
    const model = tf.sequential({ layers: [layer] });
    const x = tf.randomNormal([3, 7, 6, 2], 0, 1, 'float32', 7);
    const probe = tf.zeros(model.outputs[0]!.shape.map((n) => n ?? 3));
    const ours = conv2dRunner(layer).forward(x, probe).output.dataSync() as Float32Array;
    const theirs = (model.predict(x) as tf.Tensor).dataSync() as Float32Array;
    const scale = theirs.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    expect(ours.reduce((m, v, i) => Math.max(m, Math.abs(v - theirs[i]!)), 0)).toBeLessThanOrEqual(2 ** -20 * scale);
  });

  it('give each example the same value wherever it sits and whatever is beside it, to the bit', () => {
    const { model, x, y, loss } = cases()[2]!;
    const order = [3, 0, 2, 1];
    const index = tf.tensor1d(order, 'int32');
    const together = perExampleGradients(model, readLoss(loss), x, y);
    const shuffled = perExampleGradients(model, readLoss(loss), x.gather(index), y.gather(index));
    const alone = perExampleGradients(model, readLoss(loss), x.slice(1, 1), y.slice(1, 1));
    together.forEach((t, w) => {
      const rows = t.unstack().map((r) => Array.from(r.dataSync()));
      const moved = shuffled[w]!.unstack().map((r) => Array.from(r.dataSync()));
      expect(moved).toEqual(order.map((b) => rows[b]));
      expect(Array.from(alone[w]!.dataSync())).toEqual(rows[1]);
    });
  });
});
