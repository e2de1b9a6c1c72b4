// A CommonJS TypeScript user of dpnoise/tfjs: require() gets dist/tfjs/index.d.cts (test/consumer/tfjs.ts's configuration).
import dpnoise = require('dpnoise');
import training = require('dpnoise/tfjs');
import tf = require('@tensorflow/tfjs');

export const run = (model: tf.LayersModel): training.PrivateTraining =>
  training.privateTraining(model, {
    loss: 'meanSquaredError',
    optimizer: tf.train.adam(),
    epsilon: 1,
    delta: 1e-5,
    steps: 10,
    sampleRate: 0.1,
    clipping: 'global',
    clipNorm: 1,
    rng: dpnoise.createRng({ seed: 1 }),
  });
