// Per-example clipping factors (docs/training.md, "Rounding"): min(1, C / ||g_b||) per layer, or
// for the whole gradient (Abadi et al. 2016), from the norms computed in float64. An example
// outside the batch (an empty slot) or whose norm is not finite (an overflow in tfjs's float32, a
// NaN) counts zero: its factor is 0.
import type { NormPower } from './pieces.js';

/**
 * How the gradient is clipped: each trainable layer's part to its own norm C_l, or the whole
 * gradient to one norm C.
 *
 * @group Training
 */
export type Clipping = 'per-layer' | 'global';

/**
 * Each layer's factor for each example, from each layer's per-example ||g||_p^p and the clipping
 * norms (one per layer, or one for `global`); 0 for an example that does not count. A zero norm
 * gives C / 0 = Infinity, so the factor 1.
 */
export function clipFactors(
  layerPowers: readonly Float64Array[],
  inBatch: ArrayLike<boolean>,
  clipping: Clipping,
  p: NormPower,
  clipNorms: readonly number[],
): Float64Array[] {
  const factors = (powers: Float64Array, clip: number) =>
    powers.map((power, b) => {
      const norm = p === 2 ? Math.sqrt(power) : power;
      return inBatch[b] && Number.isFinite(norm) ? Math.min(1, clip / norm) : 0;
    });
  if (clipping === 'global') {
    const whole = layerPowers.reduce((sum, powers) => sum.map((s, b) => s + powers[b]!), new Float64Array(inBatch.length));
    const factor = factors(whole, clipNorms[0]!);
    return layerPowers.map(() => factor);
  }
  return layerPowers.map((powers, l) => factors(powers, clipNorms[l]!));
}
