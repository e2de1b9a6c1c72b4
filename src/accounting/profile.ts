// The Gaussian privacy profile (docs/accounting.md, "Gaussian privacy" and "Calibration"), computed in WebAssembly.
//
// Gaussian noise whose neighbouring outputs are at Mahalanobis distance mu is (epsilon, delta)-DP
// exactly when delta >= delta(epsilon; mu) = Q(epsilon/mu - mu/2) - e^epsilon Q(epsilon/mu + mu/2).
import { DELTA, GAUSSIAN_EPSILON, MU_FOR_EPSILON } from '../core/domains.js';
import { NON_NEGATIVE, numberIn } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';

/**
 * The privacy profile delta(epsilon; mu) of a Gaussian mechanism with distance mu.
 *
 * @example
 * ```ts
 * import { gaussianDelta } from 'dpnoise';
 *
 * // Distance 0.5 is (1, 0.0068)-DP.
 * console.log(gaussianDelta(0.5, 1)); // 0.006829594983114577
 * ```
 *
 * @group Accounting
 */
export function gaussianDelta(mu: number, epsilon: number): number {
  return wasm().gaussianDelta(numberIn('mu', mu, NON_NEGATIVE), numberIn('epsilon', epsilon, GAUSSIAN_EPSILON));
}

/**
 * mu0(epsilon, delta): the largest distance mu at which a Gaussian mechanism is
 * (epsilon, delta)-DP. Always on the safe side: gaussianDelta(result, epsilon) <= delta,
 * and within 1e-12 relative of the exact root.
 *
 * @example
 * ```ts
 * import { gaussianMu } from 'dpnoise';
 *
 * // Noise with sum_i (lambda_i / sigma_i)^2 <= mu^2 is (0.5, 1e-6)-DP.
 * console.log(gaussianMu(0.5, 1e-6)); // 0.1241061490305273
 * ```
 *
 * @group Calibration
 */
export function gaussianMu(epsilon: number, delta: number): number {
  return wasm().gaussianMu(numberIn('epsilon', epsilon, GAUSSIAN_EPSILON), numberIn('delta', delta, DELTA));
}

/**
 * The smallest epsilon >= 0 for which a Gaussian mechanism with distance mu is
 * (epsilon, delta)-DP; rounded up, so gaussianDelta(mu, result) <= delta.
 *
 * @example
 * ```ts
 * import { gaussianEpsilon } from 'dpnoise';
 *
 * // Distance 0.5 is (2.254, 1e-6)-DP.
 * console.log(gaussianEpsilon(0.5, 1e-6)); // 2.2540846502197565
 * ```
 *
 * @group Accounting
 */
export function gaussianEpsilon(mu: number, delta: number): number {
  return wasm().gaussianEpsilon(numberIn('mu', mu, MU_FOR_EPSILON), numberIn('delta', delta, DELTA));
}
