// One step's clipped sum: for each micro-batch of slots, one forward and one backward pass give
// the gradient at every trainable layer's output for all examples at once (the probes, runner.ts),
// from which each weight's per-example gradients follow in batched operations; their norms, the
// clipping factors and the clipped sum are computed from them in float64 (docs/training.md,
// "Rounding").
import * as tf from '@tensorflow/tfjs';
import { type Clipping, clipFactors } from './clipping.js';
import { EMPTY, type HostRows, microBatches, takeRows } from './layout.js';
import type { Loss } from './losses.js';
import type { Stage } from './model.js';
import { addClipped, type NormPower, normPowers, normTerms, type Piece, pieceSize, readPiece } from './pieces.js';

/** What a step computes with. */
export interface StepModel {
  readonly stages: readonly Stage[];
  readonly loss: Loss;
  readonly p: NormPower;
  readonly clipping: Clipping;
  /** The clipping norms, lowered by the margin: one per trainable layer, or one for `global`. */
  readonly clipNorms: readonly number[];
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
 * R: the most float64 roundings in an example's norm (its longest reduction, the pieces and layers
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
 * Adds one micro-batch's clipped per-example gradients to `out` (every trainable weight's
 * entries, weight after weight), in float64. `inBatch` marks the slots that hold an example of
 * the batch.
 */
export function addMicroBatch(model: StepModel, x: tf.Tensor, y: tf.Tensor, inBatch: ArrayLike<boolean>, out: Float64Array): void {
  const saved: tf.Tensor[] = [];
  try {
    tf.tidy(() => {
      const pieces = layerPieces(model, x, y, saved).map((weights) => weights.map(readPiece));
      const examples = inBatch.length;
      const powers = pieces.map((weights) =>
        weights.map((piece) => normPowers(piece, examples, model.p)).reduce((sum, next) => sum.map((s, b) => s + next[b]!)),
      );
      const factors = clipFactors(powers, inBatch, model.clipping, model.p, model.clipNorms);
      let offset = 0;
      pieces.forEach((weights, l) => {
        for (const piece of weights) {
          addClipped(piece, factors[l]!, out, offset);
          offset += pieceSize(piece);
        }
      });
    });
  } finally {
    for (const t of saved) t.dispose();
  }
}

/**
 * The clipped sum of `batch` (dataset indices), in float64, weight after weight: the query the
 * noise is added to. Micro-batches of `slots` slots, the last padded with empty slots.
 */
export function clippedSum(model: StepModel, data: { x: HostRows; y: HostRows }, batch: Int32Array, slots: number, length: number): Float64Array {
  const out = new Float64Array(length);
  for (const part of microBatches(batch, slots)) {
    const x = takeRows(data.x, part);
    const y = takeRows(data.y, part);
    try {
      addMicroBatch(
        model,
        x,
        y,
        Array.from(part, (i) => i !== EMPTY),
        out,
      );
    } finally {
      x.dispose();
      y.dispose();
    }
  }
  return out;
}
