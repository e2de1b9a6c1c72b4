// Figures of merit of a sensitivity profile (docs/calibration.md, "Figures of merit").
import { PROFILE_ENTRIES } from '../core/domains.js';
import { vector } from '../core/validate.js';

/**
 * The Gini coefficient of a profile, G = sum_i sum_j |lambda_i - lambda_j| / (2 K Delta_1):
 * 0 when all sensitivities are equal, (K - 1)/K for a one-hot profile. The more spread out the
 * profile, the more non-identical noise gains over identical noise. 0 for a profile of zeros.
 *
 * @example
 * ```ts
 * import { gini } from 'dpnoise';
 *
 * console.log(gini([1, 1, 1, 1])); // 0
 * console.log(gini([0, 0, 0, 1])); // 0.75 = (K - 1) / K
 * console.log(gini([0.1, 0.2, 0.4, 0.8])); // 0.3833
 * ```
 *
 * @group Calibration
 */
export function gini(sensitivity: Float64Array | readonly number[]): number {
  const sorted = Float64Array.from(vector('sensitivity', sensitivity, PROFILE_ENTRIES)).sort();
  const K = sorted.length;
  let total = 0;
  let weighted = 0;
  sorted.forEach((x, i) => {
    total += x;
    weighted += (2 * (i + 1) - K - 1) * x; // sum over pairs of |x_i - x_j|, via the sorted ranks
  });
  return total === 0 ? 0 : weighted / (K * total);
}
