// The Gaussian privacy profile (docs/math.md, "Gaussian privacy" and "Calibration"), computed in WebAssembly.
//
// Gaussian noise whose neighbouring outputs are at Mahalanobis distance mu is (epsilon, delta)-DP
// exactly when delta >= delta(epsilon; mu) = Q(epsilon/mu - mu/2) - e^epsilon Q(epsilon/mu + mu/2).
import { DELTA, GAUSSIAN_EPSILON, MU_FOR_EPSILON } from '../core/domains.js';
import { NON_NEGATIVE, numberIn } from '../core/validate.js';
import { wasm } from '../wasm/loader.js';

/** The privacy profile delta(epsilon; mu) of a Gaussian mechanism with distance mu. */
export function gaussianDelta(mu: number, epsilon: number): number {
  return wasm().gaussianDelta(numberIn('mu', mu, NON_NEGATIVE), numberIn('epsilon', epsilon, GAUSSIAN_EPSILON));
}

/**
 * mu0(epsilon, delta): the largest distance mu at which a Gaussian mechanism is
 * (epsilon, delta)-DP. Always on the safe side: gaussianDelta(result, epsilon) <= delta,
 * and within 1e-12 relative of the exact root.
 */
export function gaussianMu(epsilon: number, delta: number): number {
  return wasm().gaussianMu(numberIn('epsilon', epsilon, GAUSSIAN_EPSILON), numberIn('delta', delta, DELTA));
}

/**
 * The smallest epsilon >= 0 for which a Gaussian mechanism with distance mu is
 * (epsilon, delta)-DP; rounded up, so gaussianDelta(mu, result) <= delta.
 */
export function gaussianEpsilon(mu: number, delta: number): number {
  return wasm().gaussianEpsilon(numberIn('mu', mu, MU_FOR_EPSILON), numberIn('delta', delta, DELTA));
}
