// One step's clipped sum: for each micro-batch of slots, one forward and one backward pass give
// the gradient at every trainable layer's output for all examples at once (the probes, runner.ts),
// from which each weight's per-example gradients, their norms, the clipping factors and the
// clipped sums of each chunk of m slots follow in batched operations. The chunks' sums are added
// in float64 (docs/training.md, "Rounding").
import * as tf from '@tensorflow/tfjs';
import { type Clipping, clipFactors } from './clipping.js';
import { EMPTY } from './layout.js';
import type { Loss } from './losses.js';
import type { Stage } from './model.js';
import { chunkSums, type NormPower, normPowers, normTerms, type Piece } from './pieces.js';

/** What a step computes with. */
export interface StepModel {
  readonly stages: readonly Stage[];
  readonly loss: Loss;
  readonly p: NormPower;
  readonly clipping: Clipping;
  /** The float32 clipping norms: one per trainable layer, or one for `global`. */
  readonly clipNorms: readonly number[];
  /** m, the slots of a chunk. */
  readonly chunk: number;
}

/** Each trainable layer's per-example gradients of its weights (in their order), for the micro-batch x, y. */
export function layerPieces(model: Pick<StepModel, 'stages' | 'loss'>, x: tf.Tensor, y: tf.Tensor, saved: tf.Tensor[]): Piece[][] {
  const trainable = model.stages.flatMap((stage) => (stage.trainable ? [stage.trainable] : []));
  const probes = trainable.map((t) => tf.zeros([x.shape[0]!, ...t.outputShape]));
  const loss = (...values: tf.Tensor[]) => {
    let h = x;
    let k = 0;
    for (const { layer, trainable } of model.stages) {
      if (trainable) {
        const { output, saved: kept } = trainable.runner.forward(h, values[k++]!);
        saved.push(tf.keep(kept.clone())); // the gradient's scope would dispose it; a clone, as it may be the caller's input
        h = output;
      } else h = layer.apply(h, { training: true }) as tf.Tensor;
    }
    return model.loss.perExample(y, h).sum();
  };
  const gradients = tf.grads(loss)(probes);
  return trainable.map((t, k) => {
    const byName = t.runner.pieces(saved[k]!, gradients[k]!);
    return t.weights.map(({ name }) => byName[name]!);
  });
}

/**
 * R: the most float32 roundings in an example's norm (its longest reduction, the pieces and layers
 * added, the root and the factor), from the pieces' shapes on one example of zeros like x, y.
 */
export function normRoundings(stages: readonly Stage[], loss: Loss, x: tf.Tensor, y: tf.Tensor): number {
  const saved: tf.Tensor[] = [];
  try {
    return tf.tidy(() => {
      const pieces = layerPieces({ stages, loss }, tf.zeros([1, ...x.shape.slice(1)]), tf.zeros([1, ...y.shape.slice(1)]), saved);
      const terms = Math.max(...pieces.flat().map(normTerms));
      return terms + pieces.flat().length + pieces.length + 4;
    });
  } finally {
    for (const t of saved) t.dispose();
  }
}

/**
 * One micro-batch's clipped per-example gradients, summed over each chunk of `model.chunk` slots:
 * one tensor per trainable weight, [chunks, ...weight shape]. `inBatch` marks the slots that hold
 * an example of the batch.
 */
export function microBatchSums(model: StepModel, x: tf.Tensor, y: tf.Tensor, inBatch: tf.Tensor1D): tf.Tensor[] {
  const saved: tf.Tensor[] = [];
  try {
    return tf.tidy(() => {
      const pieces = layerPieces(model, x, y, saved);
      const powers = pieces.map((weights) => tf.addN(weights.map((piece) => normPowers(piece, model.p))));
      const factors = clipFactors(powers, inBatch, model.clipping, model.p, model.clipNorms);
      return pieces.flatMap((weights, l) => weights.map((piece) => chunkSums(piece, factors[l]!.factor, factors[l]!.keep, model.chunk)));
    });
  } finally {
    for (const t of saved) t.dispose();
  }
}

/**
 * The clipped sum of the batch laid out in `slots` (chunkLayout), in float64, weight after weight:
 * the query the noise is added to. Micro-batches of `microBatch` slots (a multiple of the chunk);
 * the chunks' float32 sums are added in float64, in slot order.
 */
export function clippedSum(model: StepModel, data: { x: tf.Tensor; y: tf.Tensor }, slots: Int32Array, microBatch: number, length: number): Float64Array {
  const out = new Float64Array(length);
  for (let start = 0; start < slots.length; start += microBatch) {
    const part = new Int32Array(microBatch).fill(EMPTY);
    part.set(slots.subarray(start, start + microBatch));
    const sums = tf.tidy(() => {
      // An empty slot holds example 0, whose gradient it leaves out.
      const index = tf.tensor1d(
        part.map((i) => Math.max(i, 0)),
        'int32',
      );
      const inBatch = tf.tensor1d(part, 'int32').greaterEqual(0) as tf.Tensor1D;
      return microBatchSums(model, data.x.gather(index), data.y.gather(index), inBatch);
    });
    let offset = 0;
    for (const sum of sums) {
      const values = sum.dataSync();
      const size = values.length / sum.shape[0]!;
      for (let c = 0; c < values.length; c += size) for (let i = 0; i < size; i++) out[offset + i]! += values[c + i]!;
      offset += size;
      sum.dispose();
    }
  }
  return out;
}
