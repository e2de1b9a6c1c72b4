// Per-example clipping factors (docs/training.md, "Rounding"): min(1, C / ||g_b||) per layer, or
// for the whole gradient (Abadi et al. 2016), from the norms tfjs computed in float32. An example
// outside the batch (an empty slot) or whose norm is not finite (an overflow, a NaN) counts zero.
import * as tf from '@tensorflow/tfjs';
import type { NormPower } from './pieces.js';

/**
 * How the gradient is clipped: each trainable layer's part to its own norm C_l, or the whole
 * gradient to one norm C.
 *
 * @group Training
 */
export type Clipping = 'per-layer' | 'global';

/** One layer's factor for each example, and whether the example counts. */
export interface Factors {
  readonly factor: tf.Tensor1D;
  readonly keep: tf.Tensor1D;
}

/**
 * Each layer's factors, from each layer's per-example ||g||_p^p and the float32 clipping norms
 * (one per layer, or one for `global`). A zero norm gives C / 0 = Infinity, so the factor 1.
 */
export function clipFactors(
  layerPowers: readonly tf.Tensor1D[],
  inBatch: tf.Tensor1D,
  clipping: Clipping,
  p: NormPower,
  clipNorms: readonly number[],
): Factors[] {
  const norm = (powers: tf.Tensor1D) => (p === 2 ? powers.sqrt() : powers);
  const factors = (n: tf.Tensor1D, clip: number): Factors => ({
    factor: tf.minimum(1, tf.scalar(clip).div(n)),
    keep: tf.logicalAnd(inBatch, tf.isFinite(n)),
  });
  if (clipping === 'global') {
    const whole = factors(norm(tf.addN([...layerPowers])), clipNorms[0]!);
    return layerPowers.map(() => whole);
  }
  return layerPowers.map((powers, l) => factors(norm(powers), clipNorms[l]!));
}
