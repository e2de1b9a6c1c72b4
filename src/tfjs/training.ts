// privateTraining: DP-SGD for a tfjs model (docs/training.md). The run is planned when it is made:
// the layers are read (any layer it cannot train privately is refused by name), and the noise is
// calibrated to the budget by the accountant. `fit` charges the budget, then each step draws a
// Poisson batch, clips every example's gradient, adds the noise to the float64 clipped sum and
// hands the noisy mean to the model's optimizer; the privacy spent is that of the steps taken.
import * as tf from '@tensorflow/tfjs';
import { type PrivacyBudget, readBudgetArgument } from '../accounting/ledger.js';
import type { Privacy } from '../accounting/privacy.js';
import { ALLOCATIONS, type Allocation } from '../calibrate/allocations.js';
import { memo } from '../core/memo.js';
import { fail, integerIn, numberIn, oneOf, readOptions } from '../core/validate.js';
import { MODES, type Mode } from '../mechanisms/grid.js';
import type { GaussianMechanism, LaplaceMechanism } from '../mechanisms/independent.js';
import { NOISES, type NoiseName } from '../noise/families.js';
import { type Rng, sourceOf } from '../noise/random.js';
import { wordsOf } from '../noise/words.js';
import type { Clipping } from './clipping.js';
import { chunkLayout, poissonBatch } from './layout.js';
import { type Loss, type LossName, readLoss } from './losses.js';
import { clipMargin, float32Below } from './margin.js';
import { readModel } from './model.js';
import { planNoise, runPrivacy } from './plan.js';
import { progressBar } from './progress.js';
import { clippedSum, normRoundings, type StepModel } from './step.js';

/**
 * Options of privateTraining.
 *
 * @group Training
 */
export interface PrivateTrainingOptions {
  /** The loss, by name: one value per example (docs/training.md, "Per-example gradients"). */
  loss: LossName;
  /** The optimizer that takes each step's noisy gradient (tf.train.sgd(0.5), tf.train.adam(), ...). */
  optimizer: tf.Optimizer;
  /** The run's epsilon, at `delta`. */
  epsilon: number;
  /** The run's delta. */
  delta: number;
  /** The length of the run in epochs of round(1 / sampleRate) steps; or give `steps`. */
  epochs?: number;
  /** The length of the run in steps, in place of `epochs`. */
  steps?: number;
  /** The probability that an example is in a step's batch (Poisson batches of varying size). */
  sampleRate: number;
  /** 'per-layer' (the default, with `clipNorms`) or 'global' (with `clipNorm`). */
  clipping?: Clipping;
  /** Per-layer clipping: one norm per trainable layer (l2 for Gaussian noise, l1 for Laplace noise). */
  clipNorms?: readonly number[];
  /** Global clipping: the norm of each example's whole gradient (l2 for Gaussian noise, l1 for Laplace noise). */
  clipNorm?: number;
  /** 'gaussian' (the default) or 'laplace'. */
  noise?: NoiseName;
  /** How the noise is spread over the layers: 'optimal' (the default), 'spr' (scales proportional to the clipping norms) or 'iid'. */
  allocation?: Allocation;
  /** 'grid' (the default: exact discrete noise) or 'continuous'. */
  mode?: Mode;
  /** A budget (createBudget) that `fit` charges with the whole run before training starts. */
  budget?: PrivacyBudget;
  /** The random source of the batches and the noise (createRng; default the CSPRNG). */
  rng?: Rng;
}

/**
 * What onStep receives after each step.
 *
 * @group Training
 */
export interface StepInfo {
  /** Steps taken so far. */
  readonly step: number;
  /** The epoch of the step, from 1. */
  readonly epoch: number;
  /** The epsilon the steps taken so far spend at the run's delta (computed when read). */
  readonly epsilon: number;
}

/**
 * What onEpochEnd receives, and fit's history holds, after each epoch.
 *
 * @group Training
 */
export interface EpochLogs {
  /** The epoch, from 1. */
  readonly epoch: number;
  /** The epsilon spent so far at the run's delta. */
  readonly epsilon: number;
  /** The mean loss on the validation data, if given. */
  readonly valLoss?: number;
  /** The share of validation examples classified right, for a classifier's loss and validation data. */
  readonly valAccuracy?: number;
}

/**
 * Options of fit.
 *
 * @group Training
 */
export interface PrivateFitOptions {
  /** Called after each step (awaited). */
  onStep?: (info: StepInfo) => void | Promise<void>;
  /** Called after each epoch (awaited). */
  onEpochEnd?: (logs: EpochLogs) => void | Promise<void>;
  /** Held-out [x, y], evaluated after each epoch with the model's own predict. */
  validationData?: readonly [tf.Tensor, tf.Tensor];
  /** Whether to draw a progress bar on standard error when it is a terminal (default true). */
  progress?: boolean;
}

/**
 * What fit returns.
 *
 * @group Training
 */
export interface PrivateFitResult {
  /** Steps taken (fewer than planned when the run was stopped). */
  readonly steps: number;
  /** The epsilon the steps taken spend at the run's delta. */
  readonly epsilon: number;
  /** One entry per epoch completed. */
  readonly history: readonly EpochLogs[];
}

/**
 * A private training run of a model (privateTraining).
 *
 * @group Training
 */
export interface PrivateTraining {
  /** Steps planned. */
  readonly steps: number;
  /** Steps of an epoch: round(1 / sampleRate). */
  readonly stepsPerEpoch: number;
  /** Steps taken so far. */
  readonly stepsTaken: number;
  /** z: each step's noise is calibrated to 1/z-GDP (Gaussian) or pure (1/z)-DP (Laplace). */
  readonly noiseMultiplier: number;
  /** The mechanism that adds each step's noise to the clipped sum: its per-layer scales, grid and privacy. */
  readonly mechanism: GaussianMechanism | LaplaceMechanism;
  /** The privacy of the steps taken: each step Poisson-subsampled, composed (at no step, none spent). */
  readonly privacy: Privacy;
  /** The privacy of the whole planned run, which `fit` charges to the budget. */
  readonly plannedPrivacy: Privacy;
  /** Trains on the examples x, y (first axis), with Poisson batches, until the planned steps are taken or `stop` is called. */
  fit(x: tf.Tensor, y: tf.Tensor, options?: PrivateFitOptions): Promise<PrivateFitResult>;
  /** Stops fit after the step it is taking. */
  stop(): void;
}

/** The backends whose float32 arithmetic the margin's bound assumes, and tests (docs/training.md, "Rounding"). */
const BACKENDS = ['cpu', 'wasm'];
/** m: the examples summed in float32 in one chunk (docs/training.md, "Rounding"). */
const CHUNK = 4;
/** Clipping norms taken: tfjs holds them as float32, and their roundings stay relative. */
const CLIP_NORMS = { min: 2 ** -40, max: 2 ** 40 };

/** The clipping norms: one per trainable layer (per-layer) or one (global). */
function readClipNorms(o: Record<string, unknown>, clipping: Clipping, layers: number): number[] {
  const [name, other] = clipping === 'global' ? ['clipNorm', 'clipNorms'] : ['clipNorms', 'clipNorm'];
  if (o[other] !== undefined) throw new TypeError(`dpnoise: \`${other}\` does not apply to clipping '${clipping}'; give \`${name}\`.`);
  if (clipping === 'global') return [numberIn('clipNorm', o.clipNorm, CLIP_NORMS)];
  const norms = o.clipNorms;
  if (!Array.isArray(norms) || norms.length !== layers) fail(TypeError, 'clipNorms', `an array of ${layers} numbers, one per trainable layer`, norms);
  return norms.map((c, l) => numberIn(`clipNorms[${l}]`, c, CLIP_NORMS));
}

/** The steps of the run: `steps`, or `epochs` epochs. */
function readSteps(o: Record<string, unknown>, stepsPerEpoch: number): number {
  if ((o.steps === undefined) === (o.epochs === undefined))
    throw new TypeError('dpnoise: give the length of the run as `epochs` or as `steps`, one of the two.');
  if (o.steps !== undefined) return integerIn('steps', o.steps, { min: 1, max: 1e9 });
  return integerIn('epochs', o.epochs, { min: 1, max: 1e9 }) * stepsPerEpoch;
}

/** The validation figures: mean loss, and accuracy for a classifier's loss. */
function evaluate(model: tf.LayersModel, loss: Loss, [x, y]: readonly [tf.Tensor, tf.Tensor]): { valLoss: number; valAccuracy?: number } {
  return tf.tidy(() => {
    const predicted = model.predict(x) as tf.Tensor;
    const valLoss = loss.perExample(y, predicted).mean().dataSync()[0]!;
    return loss.accuracy ? { valLoss, valAccuracy: loss.accuracy(y, predicted).mean().dataSync()[0]! } : { valLoss };
  });
}

/** Reads fit's examples: tensors with the same first axis, of at least one example. */
function readExamples(x: unknown, y: unknown): number {
  if (!(x instanceof tf.Tensor)) fail(TypeError, 'x', 'a tf.Tensor', x);
  if (!(y instanceof tf.Tensor)) fail(TypeError, 'y', 'a tf.Tensor', y);
  const examples = x.shape[0] ?? 0;
  if (examples < 1 || y.shape[0] !== examples) {
    throw new RangeError(
      `dpnoise: \`x\` and \`y\` must hold the same number of examples, at least one, on their first axis; got shapes [${x.shape}] and [${y.shape}].`,
    );
  }
  return examples;
}

/**
 * Makes a tfjs model's training differentially private (DP-SGD): per-example gradients without a
 * loop over examples, clipped per layer (or as a whole), Poisson batches, and per-layer noise
 * calibrated to (epsilon, delta) by the accountant, exact grid noise by default. Supported
 * trainable layers: dense, conv2d, embedding and layerNormalization; layers without weights that
 * act on each example alone run as they are; any other layer is refused by name. The clipping
 * norms are lowered by a margin that covers float32 rounding (docs/training.md, "Rounding").
 *
 * @example
 * ```ts
 * import * as tf from '@tensorflow/tfjs';
 * import { createRng } from 'dpnoise';
 * import { privateTraining } from 'dpnoise/tfjs';
 *
 * tf.enableProdMode(); // tfjs's production mode: no debug checks, no banner about tfjs-node
 * const x = tf.randomNormal([200, 4]);
 * const y = tf.oneHot(x.sum(1).greater(0).toInt(), 2).toFloat();
 * const model = tf.sequential({ layers: [tf.layers.dense({ inputShape: [4], units: 2, activation: 'softmax' })] });
 * const run = privateTraining(model, {
 *   loss: 'categoricalCrossentropy',
 *   optimizer: tf.train.sgd(0.5),
 *   epsilon: 2,
 *   delta: 1e-5,
 *   epochs: 2,
 *   sampleRate: 50 / 200,
 *   clipNorms: [1],
 *   rng: createRng({ seed: 1 }), // for a reproducible example; the CSPRNG by default
 * });
 * const { epsilon } = await run.fit(x, y);
 * console.log(run.stepsTaken, epsilon); // 8 steps, epsilon at most 2
 * ```
 *
 * @group Training
 */
export function privateTraining(model: tf.LayersModel, options: PrivateTrainingOptions): PrivateTraining {
  if (!(model instanceof tf.LayersModel)) fail(TypeError, 'model', 'a tfjs LayersModel (tf.sequential or tf.model)', model);
  const o = readOptions('options', options, [
    'loss',
    'optimizer',
    'epsilon',
    'delta',
    'epochs',
    'steps',
    'sampleRate',
    'clipping',
    'clipNorms',
    'clipNorm',
    'noise',
    'allocation',
    'mode',
    'budget',
    'rng',
  ]);
  const stages = readModel(model);
  const trainable = stages.flatMap((s) => (s.trainable ? [s.trainable] : []));
  if (trainable.length === 0) throw new TypeError('dpnoise: `model` has no trainable layer to train.');
  const loss = readLoss(o.loss);
  if (!(o.optimizer instanceof tf.Optimizer)) fail(TypeError, 'optimizer', 'a tfjs optimizer (tf.train.sgd(...), ...)', o.optimizer);
  const optimizer = o.optimizer;
  const rate = numberIn('sampleRate', o.sampleRate, { min: 0, max: 1, minOpen: true });
  const stepsPerEpoch = Math.max(1, Math.round(1 / rate));
  const steps = readSteps(o, stepsPerEpoch);
  const clipping = o.clipping === undefined ? 'per-layer' : oneOf('clipping', o.clipping, ['per-layer', 'global'] as const);
  const clipNorms = readClipNorms(o, clipping, trainable.length);
  const noise = o.noise === undefined ? 'gaussian' : oneOf('noise', o.noise, NOISES);
  const allocation = o.allocation === undefined ? 'optimal' : oneOf('allocation', o.allocation, ALLOCATIONS);
  const mode = o.mode === undefined ? 'grid' : oneOf('mode', o.mode, MODES);
  const budget = o.budget === undefined ? undefined : readBudgetArgument(o.budget);
  const source = sourceOf(o.rng);
  const rng = o.rng as Rng | undefined;
  const epsilon = numberIn('epsilon', o.epsilon, { min: 0, max: Infinity, minOpen: true, maxOpen: true });
  const delta = numberIn('delta', o.delta, { min: 0, max: 1, minOpen: true, maxOpen: true });
  const layerSizes = trainable.map((t) => t.weights.reduce((n, w) => n + w.variable.size, 0));
  const length = layerSizes.reduce((a, b) => a + b, 0);
  // Global clipping bounds the whole gradient: one group of every parameter.
  const sizes = clipping === 'global' ? [length] : layerSizes;
  const plan = planNoise({ sizes, sensitivity: clipNorms, allocation, noise, mode, rate, steps, epsilon, delta });
  const plannedPrivacy = runPrivacy(plan.step, steps);
  const spent = new Map<number, Privacy>();
  const privacyAfter = (taken: number) => memo(spent, taken, () => runPrivacy(plan.step, taken));
  let taken = 0;
  let stopped = false;
  let started = false;

  async function fit(x: tf.Tensor, y: tf.Tensor, fitOptions: PrivateFitOptions = {}): Promise<PrivateFitResult> {
    const f = readOptions('options', fitOptions, ['onStep', 'onEpochEnd', 'validationData', 'progress', 'shuffle', 'batchSize']);
    if (f.shuffle !== undefined) {
      throw new TypeError(
        'dpnoise: `shuffle` is not an option: batches are Poisson samples at `sampleRate`. Shuffled epochs (each example once per epoch) have no tight accountant; dpnoise refuses to account them as Poisson, which they are not.',
      );
    }
    if (f.batchSize !== undefined) throw new TypeError('dpnoise: `batchSize` is not an option: batches are Poisson samples at `sampleRate`, of varying size.');
    for (const name of ['onStep', 'onEpochEnd'] as const)
      if (f[name] !== undefined && typeof f[name] !== 'function') fail(TypeError, name, 'a function', f[name]);
    const validation = f.validationData as PrivateFitOptions['validationData'];
    if (validation !== undefined && !(Array.isArray(validation) && validation.length === 2))
      fail(TypeError, 'validationData', 'a pair [x, y] of tensors', validation);
    const population = readExamples(x, y);
    if (!BACKENDS.includes(tf.getBackend())) {
      throw new Error(
        `dpnoise: private training runs on the 'cpu' and 'wasm' tfjs backends, whose IEEE float32 arithmetic its clipping margin assumes (docs/training.md, "Rounding"); the backend is '${tf.getBackend()}': call tf.setBackend('wasm') or tf.setBackend('cpu') first.`,
      );
    }
    if (started) throw new Error('dpnoise: this run has been fitted already; make a new run (privateTraining) to train again.');
    started = true;
    budget?.spend(plannedPrivacy);
    // Blocks of about 4 chunks' worth of expected examples: one example's chunks are among its block's.
    const block = Math.min(population, Math.ceil((4 * CHUNK) / rate));
    const margin = clipMargin({ normRoundings: normRoundings(stages, loss, x, y), chunk: CHUNK, block, population });
    const model32: StepModel = {
      stages,
      loss,
      p: noise === 'gaussian' ? 2 : 1,
      clipping,
      clipNorms: clipNorms.map((c) => float32Below(c * margin)),
      chunk: CHUNK,
    };
    // Slots of a micro-batch: the expected chunks (rate N / m, and half a chunk of padding per block) with room for two standard deviations.
    const chunks = (rate * population) / CHUNK + population / block / 2;
    const microBatch = CHUNK * Math.ceil(chunks + 2 * Math.sqrt(chunks) + 1);
    const next = wordsOf(source);
    const weights = trainable.flatMap((t) => t.weights);
    const bar = progressBar(f.progress !== false);
    const history: EpochLogs[] = [];
    let figures: string[] = [];
    const spentNow = () => privacyAfter(taken).epsilon(delta);
    try {
      while (taken < steps && !stopped) {
        const slots = chunkLayout(poissonBatch(population, rate, next), block, CHUNK);
        const noisy = plan.mechanism.release(clippedSum(model32, { x, y }, slots, microBatch, length), { rng });
        // The noisy sum over the expected batch size (public), rounded to float32 only now.
        let offset = 0;
        const gradients = weights.map(({ variable }) => {
          const values = Float32Array.from(noisy.subarray(offset, offset + variable.size), (v) => v / (rate * population));
          offset += variable.size;
          return { name: variable.name, tensor: tf.tensor(values, variable.shape) };
        });
        optimizer.applyGradients(gradients);
        for (const g of gradients) g.tensor.dispose();
        taken++;
        const epoch = Math.ceil(taken / stepsPerEpoch);
        await (f.onStep as PrivateFitOptions['onStep'])?.({
          step: taken,
          epoch,
          get epsilon() {
            return spentNow();
          },
        });
        if (taken % stepsPerEpoch === 0 || taken === steps || stopped) {
          const logs: EpochLogs = { epoch, epsilon: spentNow(), ...(validation ? evaluate(model, loss, validation) : {}) };
          history.push(logs);
          await (f.onEpochEnd as PrivateFitOptions['onEpochEnd'])?.(logs);
          figures = [`epsilon ${logs.epsilon.toFixed(3)}`, ...(logs.valLoss === undefined ? [] : [`val loss ${logs.valLoss.toFixed(4)}`])];
          if (logs.valAccuracy !== undefined) figures.push(`val accuracy ${logs.valAccuracy.toFixed(3)}`);
        }
        bar.update(taken, steps, figures.join(', '));
        await tf.nextFrame();
      }
    } finally {
      bar.done();
    }
    return Object.freeze({ steps: taken, epsilon: spentNow(), history: Object.freeze(history) });
  }

  return Object.freeze({
    steps,
    stepsPerEpoch,
    get stepsTaken() {
      return taken;
    },
    noiseMultiplier: plan.noiseMultiplier,
    mechanism: plan.mechanism,
    get privacy() {
      return privacyAfter(taken);
    },
    plannedPrivacy,
    fit,
    stop() {
      stopped = true;
    },
  });
}
