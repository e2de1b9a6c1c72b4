// DP-SGD with per-layer clipping (journal section VI-C): the noise for one step, and the plan of
// a whole run.
//
// Each layer l of n_l parameters has its gradient clipped to norm C_l (l2 for Gaussian noise, l1
// for Laplace). With noise multiplier z, one step is 1/z-GDP (Gaussian) or (1/z)-DP (Laplace); the
// layers are groups with sensitivities C_l, and the optimal per-layer scales minimise the total
// noise sum_l n_l sigma_l^2 at that privacy. The usual per-layer rule sets sigma_l proportional to
// C_l (spr); global clipping clips the whole gradient to ||C|| and adds the same noise to every
// coordinate (iid). `dpsgd` finds the smallest z whose run meets (epsilon, delta), by the accountant.
import { oneCall } from '../engine/accountant.js';
import { certifies, gdpPrivacy, type Privacy, purePrivacy } from '../accounting/privacy.js';
import { compose, type Sampling, subsample } from '../accounting/combinators.js';
import { gaussianCalibration, type GaussianCalibration, type LaplaceCalibration, laplaceCalibration, type Profile } from '../calibrate/allocations.js';
import { type ApproximateTarget, readTarget } from '../core/target.js';
import { PROFILE_ENTRIES } from '../core/domains.js';
import { frozenResult } from '../core/frozen.js';
import { memo } from '../core/memo.js';
import { MAX_SEARCH_STEPS, roundUp } from '../core/rounding.js';
import { largestMeeting } from '../math/search.js';
import { integerIn, numberIn, oneOf, readOptions, readSizes, vector } from '../core/validate.js';
import { NOISES, type NoiseName } from '../noise/families.js';

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
  const z = numberIn('noiseMultiplier', o.noiseMultiplier, MULTIPLIER);
  const layers = readLayers(o);
  const calibrate = (allocation: 'optimal' | 'spr' | 'iid') => gaussianCalibration({ notion: 'gdp', mu: 1 / z }, { ...layers, allocation });
  return frozenResult({ optimal: calibrate('optimal'), spr: calibrate('spr'), global: calibrate('iid') });
}

/** Noise multipliers taken. */
const MULTIPLIER = { min: 0.001, max: 1e6 };

/** The layers as a grouped profile: sizes n_l, group sensitivities C_l (the clipping norms). */
function readLayers(o: Record<string, unknown>): Omit<Profile, 'allocation'> {
  const lambda = vector('clipNorms', o.clipNorms, PROFILE_ENTRIES);
  return { lambda, weights: readSizes('layerSizes', o.layerSizes, lambda.length), grouped: true, p: 2 };
}

/**
 * Options of dpsgd.
 *
 * @group Applications
 */
export interface DpsgdOptions {
  /** Parameters per layer, n_l. */
  layerSizes: Float64Array | readonly number[];
  /** Per-layer clipping norms C_l: l2 norms for Gaussian noise, l1 norms for Laplace noise. */
  clipNorms: Float64Array | readonly number[];
  /** How each step's batch is drawn: `{ rate }` (Poisson) or `{ size, population }` (without replacement). */
  batch: Sampling;
  /** The number of steps of the run. */
  steps: number;
  /** The run's epsilon. */
  epsilon: number;
  /** The run's delta. */
  delta: number;
  /** 'gaussian' (the default) or 'laplace'. */
  noise?: NoiseName;
}

/**
 * A DP-SGD run's noise: the multiplier the accountant calibrated, and the three rules' scales.
 *
 * @group Applications
 */
export interface DpsgdPlan {
  /** The noise. */
  readonly noise: NoiseName;
  /** z: each step is 1/z-GDP (Gaussian) or (1/z)-DP (Laplace); the smallest that meets the budget, rounded up. */
  readonly noiseMultiplier: number;
  /** The optimal per-layer scales (optimal.scales): standard deviations, or Laplace scales. */
  readonly scales: Float64Array;
  /** Optimal per-layer scales. */
  readonly optimal: GaussianCalibration | LaplaceCalibration;
  /** The per-layer rule sigma_l proportional to C_l. */
  readonly spr: GaussianCalibration | LaplaceCalibration;
  /** Global clipping to ||C||: one scale for all parameters. */
  readonly global: GaussianCalibration | LaplaceCalibration;
  /** The privacy of the whole run (the same for the three rules). */
  readonly privacy: Privacy;
  /** The target asked for. */
  readonly target: ApproximateTarget;
}

/** The relative gap at which the search for z stops (the upper end, which meets the budget, is kept). */
const SEARCH_GAP = 1e-3;

/**
 * Plans a DP-SGD run: the smallest noise multiplier z whose `steps` subsampled steps meet
 * (epsilon, delta) by the accountant (docs/accounting.md, "Calibrating by the accountant"), and the
 * per-layer scales of journal section VI-C at that z (the optimal allocation, the per-layer
 * proportional rule and global clipping, all with the same privacy). z is found by the one
 * calibration search (largestMeeting, on 1/z) and kept at the end that meets the budget; Laplace steps are accounted as randomized
 * response (their dominating pair for several layers). A run of 10^4 steps takes a few seconds.
 *
 * @example
 * ```ts
 * import { dpsgd, gaussianNoise } from 'dpnoise';
 *
 * const layerSizes = [432, 2304, 650];
 * const plan = dpsgd({
 *   layerSizes,
 *   clipNorms: [0.5, 0.7, 0.5],
 *   batch: { rate: 0.01 },
 *   steps: 1000,
 *   epsilon: 3,
 *   delta: 1e-5,
 * });
 * console.log(plan.noiseMultiplier); // 0.8140
 * console.log(plan.privacy.epsilon(1e-5)); // at most 3
 * const noise = gaussianNoise(3386, { sizes: layerSizes, scales: plan.scales }); // one step's noise
 * console.log(noise.length);
 * ```
 *
 * @group Applications
 */
export function dpsgd(options: DpsgdOptions): DpsgdPlan {
  const o = readOptions('options', options, ['layerSizes', 'clipNorms', 'batch', 'steps', 'epsilon', 'delta', 'noise']);
  const layers = readLayers(o);
  const steps = integerIn('steps', o.steps, { min: 1, max: 1e9 });
  const target = readTarget(o, ['approximate']) as { notion: 'approximate'; epsilon: number; delta: number };
  const noise = o.noise === undefined ? 'gaussian' : oneOf('noise', o.noise, NOISES);
  // Read once: a getter must not answer one rate to the search and another to the reported privacy.
  const batch = readOptions('batch', o.batch, ['rate', 'size', 'population', 'sampling']) as unknown as Sampling;
  const runs = new Map<number, Privacy>();
  const run = (z: number) =>
    memo(runs, z, () => {
      const step = noise === 'gaussian' ? gdpPrivacy(roundUp(1 / z), 'gaussian') : purePrivacy(roundUp(1 / z), 'laplace');
      return compose([{ privacy: subsample(step, batch), times: steps }]);
    });
  const meets = (z: number) => certifies(run(z), target.epsilon, target.delta);
  // The largest step distance 1/z that meets the budget (the one calibration search), from z = 1
  // when it meets, else from the first z that does by doubling (whose half is the ceiling). The
  // whole search is one call of the accountant, with one work budget (engine/accountant.ts, oneCall): a
  // try it cannot pay for reads as not met, the safe side.
  const z = oneCall(() => {
    let start = 1;
    for (let i = 0; i < MAX_SEARCH_STEPS && start < MULTIPLIER.max && !meets(start); i++) start = Math.min(MULTIPLIER.max, start * 2);
    if (!meets(start)) {
      throw new RangeError(
        `dpnoise: no noise multiplier up to ${MULTIPLIER.max} could be certified to meet epsilon ${target.epsilon} at delta ${target.delta} over ${steps} steps; allow a larger budget or fewer steps.`,
      );
    }
    const ceiling = start === 1 ? 1 / MULTIPLIER.min : 2 / start;
    return 1 / largestMeeting((mu) => meets(1 / mu), 1 / start, { gap: SEARCH_GAP, ceiling });
  });
  const perStep = noise === 'gaussian' ? undefined : { notion: 'pure' as const, epsilon: 1 / z };
  const calibrate = (allocation: 'optimal' | 'spr' | 'iid') =>
    perStep ? laplaceCalibration(perStep, { ...layers, allocation }) : gaussianCalibration({ notion: 'gdp', mu: 1 / z }, { ...layers, allocation });
  const optimal = calibrate('optimal');
  return frozenResult({
    noise,
    noiseMultiplier: z,
    scales: optimal.scales,
    optimal,
    spr: calibrate('spr'),
    global: calibrate('iid'),
    privacy: run(z),
    target: { epsilon: target.epsilon, delta: target.delta },
  });
}
