// Which noise family has the lower error for a profile and budget: the optimal Gaussian
// ((epsilon, delta)-DP) and Laplace (pure epsilon-DP) calibrations side by side.
import { budgetOf, readBudget } from '../core/budget.js';
import { frozenResult } from '../core/frozen.js';
import { readOptions } from '../core/validate.js';
import { gaussianCalibration, type GaussianCalibration, type Groups, laplaceCalibration, type LaplaceCalibration, readProfile } from './allocations.js';

/**
 * What `recommend` returns.
 *
 * @group Calibration
 */
export interface Recommendation {
  /** The optimal Gaussian calibration ((epsilon, delta)-DP). */
  readonly gaussian: GaussianCalibration;
  /** The optimal Laplace calibration (pure epsilon-DP). */
  readonly laplace: LaplaceCalibration;
  /** The one with the lower error (Laplace also gives pure epsilon-DP). */
  readonly best: 'gaussian' | 'laplace';
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
  /** epsilon: the Gaussian calibration meets (epsilon, delta), the Laplace one pure epsilon. */
  epsilon: number;
  /** delta, for the Gaussian calibration. */
  delta: number;
  /** The p of the error compared (default 2). */
  errorPower?: number;
  /** Per-coordinate weights of the error (default all 1). */
  weights?: Float64Array | readonly number[];
}

/**
 * The optimal Gaussian ((epsilon, delta)-DP) and Laplace (epsilon-DP) calibrations side by side,
 * and which has the lower error. With spread-out profiles Laplace can win even in high dimensions.
 *
 * @example
 * ```ts
 * import { recommend } from 'dpnoise';
 *
 * const r = recommend({ sensitivity: [0.1, 0.2, 0.4, 0.8], epsilon: 1, delta: 1e-6 });
 * console.log(r.best, r.gaussian.mse, r.laplace.mse); // 'laplace' 40.16 15.11
 * ```
 *
 * @group Calibration
 */
export function recommend(options: RecommendOptions): Recommendation {
  const o = readOptions('options', options, ['sensitivity', 'groups', 'epsilon', 'delta', 'errorPower', 'weights']);
  const target = readBudget(o, ['approximate']);
  const profile = readProfile(o);
  const gaussian = gaussianCalibration(target, profile);
  const laplace = laplaceCalibration({ notion: 'pure', epsilon: (budgetOf(target) as { epsilon: number }).epsilon }, profile);
  return frozenResult({ gaussian, laplace, best: laplace.error < gaussian.error ? 'laplace' : 'gaussian' });
}
