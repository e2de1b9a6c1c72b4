// DP-SGD with per-layer clipping (journal section VI-C): the noise for one step.
//
// Each layer l of n_l parameters has its gradient clipped to l2 norm C_l. With noise multiplier z
// (chosen by the user's own accountant for one step, so mu = 1/z per step), the layers are groups
// with sensitivities C_l: the optimal per-layer scales minimise the total noise sum_l n_l sigma_l^2
// at that mu. The usual per-layer rule sets sigma_l proportional to C_l (spr); global clipping
// clips the whole gradient to ||C||_2 and adds sigma = ||C||_2 z to every coordinate (iid).
import { gaussianCalibration, type GaussianCalibration } from '../calibrate/allocations.js';
import { PROFILE_ENTRIES } from '../core/domains.js';
import { frozenResult } from '../core/frozen.js';
import { numberIn, readOptions, readSizes, vector } from '../core/validate.js';

/**
 * Options of perLayerNoise.
 *
 * @group Applications
 */
export interface PerLayerNoiseOptions {
  /** Parameters per layer, n_l. */
  layerSizes: Float64Array | readonly number[];
  /** Per-layer l2 clipping norms C_l. */
  clipNorms: Float64Array | readonly number[];
  /** z: the per-step noise multiplier of global clipping (mu = 1/z per step). */
  noiseMultiplier: number;
}

/**
 * The three rules' calibrations, one scale per layer each.
 *
 * @group Applications
 */
export interface PerLayerNoise {
  /** Optimal per-layer standard deviations (scales[l] for every parameter of layer l). */
  optimal: GaussianCalibration;
  /** The per-layer rule sigma_l proportional to C_l. */
  spr: GaussianCalibration;
  /** Global clipping to ||C||_2: one standard deviation for all parameters. */
  global: GaussianCalibration;
}

/**
 * Per-layer noise scales for one DP-SGD step, at the privacy of noise multiplier z: the optimal
 * allocation, the per-layer proportional rule and global clipping. Each result's `mse` is the
 * total noise variance sum_l n_l sigma_l^2; add the noise with gaussianNoise(K, { sizes, scales }).
 *
 * @example
 * ```ts
 * import { gaussianNoise, perLayerNoise } from 'dpnoise';
 *
 * const layerSizes = [432, 2304, 650];
 * const { optimal, spr } = perLayerNoise({
 *   layerSizes,
 *   clipNorms: [0.5, 0.7, 0.5],
 *   noiseMultiplier: 1.1,
 * });
 * console.log(optimal.scales); // one standard deviation per layer
 * console.log(optimal.mse / spr.mse); // 0.767
 * // One step's noise for the 3386 parameters.
 * const noise = gaussianNoise(3386, { sizes: layerSizes, scales: optimal.scales });
 * console.log(noise.length);
 * ```
 *
 * @group Applications
 */
export function perLayerNoise(options: PerLayerNoiseOptions): PerLayerNoise {
  const o = readOptions('options', options, ['layerSizes', 'clipNorms', 'noiseMultiplier']);
  const z = numberIn('noiseMultiplier', o.noiseMultiplier, { min: 0.001, max: 1e6 });
  // The layers are groups: sizes n_l, group sensitivities C_l (the l2 clipping norms).
  const lambda = vector('clipNorms', o.clipNorms, PROFILE_ENTRIES);
  const sizes = readSizes('layerSizes', o.layerSizes, lambda.length);
  const calibrate = (allocation: 'optimal' | 'spr' | 'iid') =>
    gaussianCalibration({ notion: 'gdp', mu: 1 / z }, { lambda, weights: sizes, grouped: true, allocation, p: 2 });
  return frozenResult({ optimal: calibrate('optimal'), spr: calibrate('spr'), global: calibrate('iid') });
}
