// A TypeScript user of dpnoise/tfjs by import: type-checked by test/package.test.ts, with
// skipLibCheck as tfjs's users need it (its own declarations fail a strict check: Long, PyJsonValue).
import * as tf from '@tensorflow/tfjs';
import { createBudget } from 'dpnoise';
import { type PrivateTraining, privateTraining } from 'dpnoise/tfjs';

const options = {
  optimizer: tf.train.sgd(0.1),
  epsilon: 1,
  delta: 1e-5,
  epochs: 1,
  sampleRate: 0.1,
  clipNorms: [1],
  budget: createBudget({ epsilon: 1, delta: 1e-5 }),
};
export const training = (model: tf.LayersModel): PrivateTraining => privateTraining(model, { ...options, loss: 'categoricalCrossentropy' });
// @ts-expect-error the losses are taken by name
export const unknownLoss = (model: tf.LayersModel): PrivateTraining => privateTraining(model, { ...options, loss: 'hinge' });
