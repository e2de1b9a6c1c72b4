// Layers private training cannot train privately are refused by name when the run is made, before
// any training (src/tfjs/model.ts): the model's weights are untouched.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { privateTraining } from '../../src/tfjs/index.js';
import { useBackend } from './helpers.js';

const options = () => ({ loss: 'meanSquaredError', optimizer: tf.train.sgd(0.1), epsilon: 1, delta: 1e-5, steps: 2, sampleRate: 0.5 }) as const;

/** The weights of a model, as numbers. */
const weightsOf = (model: tf.LayersModel) => model.getWeights().map((w) => Array.from(w.dataSync()));

describe('layers private training refuses', () => {
  useBackend('cpu');

  const refused: Array<[string, () => tf.LayersModel, number, RegExp]> = [
    [
      'batch normalization (it mixes the examples of a batch)',
      () => tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 2 }), tf.layers.batchNormalization()] }),
      1,
      /layer 'batch_normalization\w*' \(BatchNormalization\) is not supported by private training/,
    ],
    [
      'an LSTM',
      () => tf.sequential({ layers: [tf.layers.lstm({ inputShape: [4, 3], units: 2 }), tf.layers.dense({ units: 1 })] }),
      1,
      /layer 'lstm\w*' \(LSTM\) is not supported/,
    ],
    [
      'a regularizer',
      () => tf.sequential({ layers: [tf.layers.dense({ inputShape: [3], units: 1, kernelRegularizer: tf.regularizers.l2() })] }),
      1,
      /layer 'dense\w*' \(Dense\) has a kernelRegularizer/,
    ],
    [
      'channels-first convolutions',
      () =>
        tf.sequential({ layers: [tf.layers.conv2d({ inputShape: [2, 5, 5], filters: 1, kernelSize: 2, dataFormat: 'channelsFirst' }), tf.layers.flatten()] }),
      1,
      /\(Conv2D\) has dataFormat 'channelsFirst'/,
    ],
    [
      'a model that is not a chain',
      () => {
        const input = tf.input({ shape: [3] });
        const a = tf.layers.dense({ units: 2 }).apply(input) as tf.SymbolicTensor;
        const b = tf.layers.dense({ units: 2 }).apply(input) as tf.SymbolicTensor;
        return tf.model({ inputs: input, outputs: tf.layers.add().apply([a, b]) as tf.SymbolicTensor });
      },
      1,
      /does not take the output of the layer before it alone/,
    ],
  ];

  it.each(refused)('%s, by name, before training', (_what, make, clipNorms, message) => {
    const model = make();
    const before = weightsOf(model);
    expect(() => privateTraining(model, { ...options(), clipNorms: new Array(clipNorms).fill(1) })).toThrow(message);
    expect(weightsOf(model)).toEqual(before);
  });

  it('takes frozen layers and layers without weights as they are', () => {
    const frozen = tf.layers.dense({ units: 4, trainable: false });
    const model = tf.sequential({
      layers: [
        tf.layers.reshape({ inputShape: [6], targetShape: [3, 2] }),
        tf.layers.flatten(),
        frozen,
        tf.layers.dropout({ rate: 0.1 }),
        tf.layers.dense({ units: 1 }),
      ],
    });
    const run = privateTraining(model, { ...options(), clipNorms: [1] });
    expect(run.steps).toBe(2);
    // One trainable layer: clipNorms must have one entry.
    expect(() => privateTraining(model, { ...options(), clipNorms: [1, 1] })).toThrow('`clipNorms` must be an array of 1 numbers, one per trainable layer');
  });
});
