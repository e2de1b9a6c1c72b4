// A private training run (src/tfjs/training.ts, plan.ts): the epsilon it reports is the
// accountant's for its sampling and the steps it took, stopped early or not; the budget is charged
// for the whole run before training; shuffled epochs are refused; seeded runs repeat; errors do
// not show training data; and it trains, on both backends.
import * as tf from '@tensorflow/tfjs';
import { describe, expect, it } from 'vitest';
import { compose, createBudget, createRng, subsample } from '../../src/index.js';
import { privateTraining } from '../../src/tfjs/index.js';
import { expectWithheld } from '../helpers.js';
import { BACKENDS, useBackend } from './helpers.js';

/** Two separable classes in 4 features, 240 examples, and a softmax layer. */
function problem() {
  const x = tf.randomNormal([240, 4], 0, 1, 'float32', 21);
  const y = tf.oneHot(x.sum(1).greater(0).toInt(), 2).toFloat();
  const init = (seed: number) => tf.initializers.glorotNormal({ seed });
  const model = tf.sequential({
    layers: [
      tf.layers.dense({ inputShape: [4], units: 6, activation: 'relu', kernelInitializer: init(1) }),
      tf.layers.dense({ units: 2, activation: 'softmax', kernelInitializer: init(2) }),
    ],
  });
  return { x, y, model };
}

const base = () =>
  ({
    loss: 'categoricalCrossentropy',
    optimizer: tf.train.sgd(0.5),
    epsilon: 2,
    delta: 1e-5,
    sampleRate: 0.2,
    rng: createRng({ seed: 'training' }),
  }) as const;

const weightsOf = (model: tf.LayersModel) => model.getWeights().map((w) => Array.from(w.dataSync()));

describe.each(BACKENDS)('private training on the %s backend', (backend) => {
  useBackend(backend);

  it('reports the accountant epsilon of its steps, all taken or stopped early, and charges the budget first', async () => {
    const { x, y, model } = problem();
    const budget = createBudget({ epsilon: 3, delta: 1e-5 });
    const run = privateTraining(model, { ...base(), clipNorms: [1, 1], epochs: 3, budget });
    expect(run.steps).toBe(15);
    expect(run.plannedPrivacy.epsilon(1e-5)).toBeLessThanOrEqual(2);
    expect(run.privacy.epsilon(1e-5)).toBe(0);
    const accountant = (steps: number) => compose([{ privacy: subsample(run.mechanism.privacy, { rate: 0.2 }), times: steps }]).epsilon(1e-5);
    const seen: number[] = [];
    const result = await run.fit(x, y, {
      progress: false,
      onStep(info) {
        // Charged for the whole run before the first step.
        expect(budget.spent.epsilon).toBe(run.plannedPrivacy.epsilon(1e-5));
        seen.push(info.epsilon);
        if (info.step === 7) run.stop();
      },
    });
    expect(result.steps).toBe(7);
    expect(run.stepsTaken).toBe(7);
    expect(run.privacy.epsilon(1e-5)).toBe(accountant(7));
    expect(result.epsilon).toBe(accountant(7));
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7].map(accountant));
    expect(result.history.map((h) => h.epoch)).toEqual([1, 2]); // the stop ends epoch 2 early
    await expect(run.fit(x, y)).rejects.toThrow('has been fitted already');
  });

  it('refuses a run the budget cannot hold, before training', async () => {
    const { x, y, model } = problem();
    const before = weightsOf(model);
    const run = privateTraining(model, { ...base(), clipNorms: [1, 1], epochs: 1, budget: createBudget({ epsilon: 1, delta: 1e-5 }) });
    await expect(run.fit(x, y, { progress: false })).rejects.toThrow('would exceed the budget');
    expect(weightsOf(model)).toEqual(before);
  });

  it('trains: the validation accuracy passes 80% in 10 epochs (chance 50%), and a seed repeats the run', async () => {
    const runOnce = async () => {
      const { x, y, model } = problem();
      const run = privateTraining(model, { ...base(), clipNorms: [1, 1], epochs: 10 });
      const { history } = await run.fit(x, y, { progress: false, validationData: [x, y] });
      return { accuracy: history.at(-1)!.valAccuracy!, weights: weightsOf(model), epsilon: history.at(-1)!.epsilon };
    };
    const first = await runOnce();
    expect(first.accuracy).toBeGreaterThan(0.8);
    expect(first.epsilon).toBeLessThanOrEqual(2);
    expect((await runOnce()).weights).toEqual(first.weights);
  });

  it.each([
    { noise: 'laplace', clipping: 'per-layer', mode: 'grid' },
    { noise: 'gaussian', clipping: 'global', mode: 'continuous' },
    { noise: 'laplace', clipping: 'global', mode: 'continuous' },
  ] as const)('runs with $noise noise, $clipping clipping, $mode mode, within the budget', async ({ noise, clipping, mode }) => {
    const { x, y, model } = problem();
    const clip = clipping === 'global' ? ({ clipping, clipNorm: 1.5 } as const) : { clipNorms: [1, 1] };
    const run = privateTraining(model, { ...base(), ...clip, noise, mode, steps: 4 });
    const { epsilon } = await run.fit(x, y, { progress: false });
    expect(epsilon).toBeLessThanOrEqual(2);
    expect(run.mechanism.mode).toBe(mode);
    expect(weightsOf(model).flat().every(Number.isFinite)).toBe(true);
  });
});

describe('fit options and errors', () => {
  useBackend('cpu');

  it('refuses shuffled epochs and fixed batch sizes', async () => {
    const { x, y, model } = problem();
    const run = privateTraining(model, { ...base(), clipNorms: [1, 1], steps: 1 });
    await expect(run.fit(x, y, { shuffle: true } as never)).rejects.toThrow('Shuffled epochs (each example once per epoch) have no tight accountant');
    await expect(run.fit(x, y, { batchSize: 32 } as never)).rejects.toThrow('`batchSize` is not an option');
    expect(run.stepsTaken).toBe(0);
  });

  it('prints the same progress bar for neighbouring datasets: steps and epsilon only', async () => {
    const printed = async (x: tf.Tensor) => {
      const { y, model } = problem();
      const run = privateTraining(model, { ...base(), clipNorms: [1, 1], steps: 3 });
      const stderr = process.stderr;
      const [tty, write] = [stderr.isTTY, stderr.write];
      let text = '';
      stderr.isTTY = true;
      stderr.write = ((chunk: string) => {
        text += chunk;
        return true;
      }) as typeof stderr.write;
      try {
        await run.fit(x, y);
      } finally {
        stderr.isTTY = tty;
        stderr.write = write;
      }
      return text;
    };
    const { x } = problem();
    const neighbour = tf.concat([x.slice(0, 239), tf.fill([1, 4], 1e6)]);
    const text = await printed(x);
    expect(text).toContain('step 3/3');
    expect(text).toMatch(/epsilon \d\.\d{3}/);
    expect(await printed(neighbour)).toBe(text);
  });

  it('shows no training data in its errors: embedding ids out of range', async () => {
    const model = tf.sequential({
      layers: [tf.layers.embedding({ inputDim: 10, outputDim: 2, inputLength: 3 }), tf.layers.flatten(), tf.layers.dense({ units: 1 })],
    });
    const x = tf.tensor2d([1, 2, 3, 4, 5, 987654], [2, 3]);
    const run = privateTraining(model, { ...base(), loss: 'meanSquaredError', clipNorms: [1, 1], sampleRate: 1, steps: 1 });
    await expectWithheld(() => run.fit(x, tf.zeros([2, 1]), { progress: false }), RangeError, ['embedding'], ['987654']);
  });
});
