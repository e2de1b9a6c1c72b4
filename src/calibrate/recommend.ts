// Which noise family has the lower error for a profile and budget: the optimal Gaussian and
// Laplace calibrations side by side, both for (epsilon, delta)-DP (Laplace by the accountant), and
// the staircase at pure epsilon.
import { targetOf, readTarget } from '../core/target.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import {
  approximateLaplaceCalibration,
  gaussianCalibration,
  type GaussianCalibration,
  type Groups,
  laplaceCalibration,
  type LaplaceCalibration,
  readProfile,
} from './allocations.js';
import { type StaircaseCalibration, staircaseCalibration, staircasePower } from './staircase.js';

/**
 * What `recommend` returns.
 *
 * @group Calibration
 */
export interface Recommendation {
  /** The optimal Gaussian calibration ((epsilon, delta)-DP). */
  readonly gaussian: GaussianCalibration;
  /**
   * The optimal Laplace calibration for (epsilon, delta)-DP by the accountant (calibrateLaplace
   * with `delta`); with `groups`, which the accountant does not take per group, pure epsilon-DP.
   */
  readonly laplace: LaplaceCalibration;
  /** The optimal Laplace calibration for pure epsilon-DP (larger scales; no delta at all). */
  readonly laplacePure: LaplaceCalibration;
  /** The optimal staircase calibration for pure epsilon-DP (calibrateStaircase); undefined with `groups` or an errorPower that is not a whole number from 1 to 8. */
  readonly staircase: StaircaseCalibration | undefined;
  /**
   * The one with the lowest error at (epsilon, delta): the staircase only when its error is at
   * least 1% below the better of the other two (a mechanism of its own for less is not worth it).
   */
  readonly best: 'gaussian' | 'laplace' | 'staircase';
  /** Why: the errors compared. */
  readonly reason: string;
}

/**
 * Options of recommend: a profile, `epsilon` and `delta`, and optionally the error to compare.
 *
 * @group Calibration
 */
export interface RecommendOptions {
  /** Per-coordinate sensitivities. */
  sensitivity?: Float64Array | readonly number[];
  /** Groups of coordinates with one scale each, in place of `sensitivity`. */
  groups?: Groups;
  /** epsilon: both calibrations meet (epsilon, delta); laplacePure meets pure epsilon. */
  epsilon: number;
  /** delta. */
  delta: number;
  /** The p of the error compared (default 2). */
  errorPower?: number;
  /** Per-coordinate weights of the error (default all 1). */
  weights?: Float64Array | readonly number[];
}

/**
 * The optimal Gaussian and Laplace calibrations for (epsilon, delta)-DP side by side (Laplace by
 * the accountant, which often lets it spend more than epsilon as pure epsilon-DP), the pure
 * Laplace one and the staircase (pure epsilon; calibrateStaircase), which has the lowest error,
 * and why. With spread-out profiles Laplace can win even in high dimensions; with a large budget
 * per coordinate, the staircase.
 *
 * @example
 * ```ts
 * import { recommend } from 'dpnoise';
 *
 * const r = recommend({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1, delta: 1e-6 });
 * console.log(r.best, r.gaussian.mse, r.laplace.mse); // 'laplace' 40.16 15.11 (four coordinates: delta buys Laplace nothing here)
 * console.log(r.reason); // Laplace noise: error 40.16 (Gaussian), 15.11 (Laplace), 15.04 (staircase, pure epsilon); the staircase gains less than 1%.
 * ```
 *
 * @group Calibration
 */
export function recommend(options: RecommendOptions): Recommendation {
  const o = readOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'delta', 'errorPower', 'weights']);
  const target = readTarget(o, ['approximate']);
  const profile = readProfile(o);
  const gaussian = gaussianCalibration(target, profile);
  const pure = { notion: 'pure', epsilon: (targetOf(target) as { epsilon: number }).epsilon } as const;
  const laplacePure = laplaceCalibration(pure, profile);
  const laplace = profile.grouped ? laplacePure : approximateLaplaceCalibration(target as typeof target & { notion: 'approximate' }, profile);
  const staircase = profile.grouped || !staircasePower(profile.p) ? undefined : staircaseCalibration(pure, profile);
  const [other, otherError] = laplace.error < gaussian.error ? (['laplace', laplace.error] as const) : (['gaussian', gaussian.error] as const);
  const best = staircase !== undefined && staircase.error < 0.99 * otherError ? 'staircase' : other;
  const figures = `error ${fmt(gaussian.error)} (Gaussian), ${fmt(laplace.error)} (Laplace)${staircase ? `, ${fmt(staircase.error)} (staircase, pure epsilon)` : ''}`;
  const reason =
    best === 'staircase'
      ? `The staircase: ${figures}.`
      : `${other === 'laplace' ? 'Laplace' : 'Gaussian'} noise: ${figures}${staircase && staircase.error < otherError ? '; the staircase gains less than 1%' : ''}.`;
  return frozenResult({ gaussian, laplace, laplacePure, staircase: staircase && frozenResult(staircase), best, reason });
}

/** A figure to 4 significant digits. */
function fmt(x: number): string {
  return x.toPrecision(4);
}
